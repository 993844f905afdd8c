import { appendFileSync, readFileSync } from "node:fs";
import { type Ollie, prompt, startOllie } from "./harness.js";

/**
 * The daemon's memory per prompted idle session: SESSIONS sessions each prompted once (a turn over the mock
 * backend, which makes the agent and dials its toolsrv connection) and left idle, against one — with the
 * agents kept live (`--idle-close 0`, as before idle agents were parked) and with them parked after a second
 * (`--idle-close 1`). The daemon runs with --expose-gc, and reading `stats` collects first. Its RSS right
 * after the sessions were made still holds the garbage of making them, which node gives back over the next
 * minute or so: RSS is the lowest seen in a minute, as a user with idle sessions sees it; the heap after a
 * collection is steady from the start (and varies far less from run to run).
 */
const SESSIONS = Number(process.env.OLLIE_BENCH_SESSIONS ?? 1000);
/** Sessions prompted at once while filling the daemon. */
const BATCH = 20;

const statusKiB = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

async function stats(o: Ollie): Promise<Record<string, number>> {
  const text = await o.read("stats");
  return Object.fromEntries(
    text.split("\n").map((l) => [l.split(" ")[0], Number.parseInt(l.split(" ")[1]!, 10)]),
  );
}

function toolsrvPid(o: Ollie): number {
  const children = readFileSync(`/proc/${o.pid}/task/${o.pid}/children`, "utf8").trim().split(/\s+/);
  return children.map(Number).find((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").includes("toolsrv"))!;
}

/** Waits until `stats` says `toolsrv-connections` is `n`. */
async function connections(o: Ollie, n: number): Promise<void> {
  for (let waited = 0; (await stats(o))["toolsrv-connections"] !== n; waited += 200) {
    if (waited > 120_000) throw new Error(`toolsrv-connections never reached ${n}: ${await o.read("stats")}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * RSS (KiB) as node gives back what making the sessions cost: the lowest of a look every 5 s for a minute,
 * each after a full collection.
 */
async function settledRss(o: Ollie): Promise<number> {
  let lowest = statusKiB(o.pid, "VmRSS");
  for (let waited = 0; waited < 60_000; waited += 5000) {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await stats(o);
    lowest = Math.min(lowest, statusKiB(o.pid, "VmRSS"));
  }
  return lowest;
}

async function promptOne(o: Ollie): Promise<void> {
  const id = await o.create(`cwd=${o.work}`);
  o.mock.enqueue({ text: "ok" });
  await prompt(o, `session/${id}/agent/main`, "ping");
}

interface Footprint {
  /** olliesrv's RSS (KiB) with one session, and with SESSIONS. */
  one: number;
  full: number;
  /** The same for the toolsrv it started. */
  toolsrvOne: number;
  toolsrvFull: number;
  /** olliesrv's heap (bytes) after a full collection, with one session and with SESSIONS. */
  heapOne: number;
  heapFull: number;
}

async function footprint(idleCloseS: number): Promise<Footprint> {
  const o = await startOllie("olliesrv-bench-idle-", {
    args: ["--idle-close", String(idleCloseS), "--max-sessions", String(SESSIONS + 10)],
    nodeArgs: ["--expose-gc"],
  });
  try {
    const expected = (n: number) => (idleCloseS === 0 ? n : 0);
    await promptOne(o);
    await connections(o, expected(1));
    const toolsrv = toolsrvPid(o);
    const heapOne = (await stats(o))["heap-used"]!;
    const one = await settledRss(o);
    const toolsrvOne = statusKiB(toolsrv, "VmRSS");
    for (let made = 1; made < SESSIONS; made += BATCH) {
      await Promise.all(Array.from({ length: Math.min(BATCH, SESSIONS - made) }, () => promptOne(o)));
    }
    await connections(o, expected(SESSIONS));
    const heapFull = (await stats(o))["heap-used"]!;
    return {
      one,
      full: await settledRss(o),
      toolsrvOne,
      toolsrvFull: statusKiB(toolsrv, "VmRSS"),
      heapOne,
      heapFull,
    };
  } finally {
    await o.stop();
    await o.remove();
  }
}

/** One side alone, while working on it: `node --import tsx test/bench-idle-sessions.ts parked|kept`. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const side = process.argv[2] === "kept" ? 0 : 1;
  const f = await footprint(side);
  const per = (f.full - f.one) / (SESSIONS - 1);
  const heap = (f.heapFull - f.heapOne) / (SESSIONS - 1) / 1024;
  console.log(
    `${SESSIONS} sessions, --idle-close ${side}: ${per.toFixed(1)} KiB RSS, ${heap.toFixed(1)} KiB heap per session (olliesrv ${(f.full / 1024).toFixed(1)} MiB against ${(f.one / 1024).toFixed(1)} MiB)`,
  );
}

export async function idleSessions(): Promise<string> {
  const kept = await footprint(0);
  const closed = await footprint(1);
  const per = (f: Footprint) => (f.full - f.one) / (SESSIONS - 1);
  const line = (name: string, f: Footprint) =>
    `   ${name}: olliesrv ${(f.full / 1024).toFixed(1)} MiB RSS against ${(f.one / 1024).toFixed(1)} MiB with one, ${per(f).toFixed(1)} KiB per session (heap ${((f.heapFull - f.heapOne) / (SESSIONS - 1) / 1024).toFixed(1)} KiB); toolsrv ${(f.toolsrvFull / 1024).toFixed(1)} MiB against ${(f.toolsrvOne / 1024).toFixed(1)} MiB, ${((f.toolsrvFull - f.toolsrvOne) / (SESSIONS - 1)).toFixed(1)} KiB per session`;
  // A row of the table `npm run bench` ends with (scripts/bench.mjs).
  const summary = process.env.OLLIE_BENCH_SUMMARY;
  if (summary)
    appendFileSync(
      summary,
      `${JSON.stringify({
        order: 5,
        measure: `olliesrv RSS per prompted idle session (${SESSIONS.toLocaleString("en")} against one), agents parked when idle vs kept live`,
        ours: `${per(closed).toFixed(1)} KiB (heap ${((closed.heapFull - closed.heapOne) / (SESSIONS - 1) / 1024).toFixed(1)} KiB)`,
        baseline: `${per(kept).toFixed(1)} KiB (heap ${((kept.heapFull - kept.heapOne) / (SESSIONS - 1) / 1024).toFixed(1)} KiB)`,
        ratio: `${(per(closed) / per(kept)).toFixed(2)}×`,
        goal: "≤ 50 KiB, no toolsrv connection",
        met: per(closed) <= 50,
      })}\n`,
    );
  return [
    `${SESSIONS.toLocaleString("en")} prompted idle sessions (one turn each), RSS the lowest in a minute, heap after a full collection:`,
    line("agents kept live (--idle-close 0)", kept),
    line("agents parked when idle (--idle-close 1)", closed),
    `   per session, parked against kept: RSS ${(per(closed) / per(kept)).toFixed(2)}, heap ${((closed.heapFull - closed.heapOne) / (kept.heapFull - kept.heapOne)).toFixed(2)}`,
  ].join("\n");
}
