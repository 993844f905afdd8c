import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { resolvePolicy, sandboxCommand, startSandboxed, withLayer } from "@ollie/sandbox";
import type { ToolsrvConn } from "@ollie/toolsrv/client";
import { type Daemon, homes, scratch, shTool, startDaemon } from "../test/daemon.js";

/**
 * What a tool call costs the agent that makes it, against the same tool started without toolsrv — in the
 * same run, interleaved, over several rounds:
 *
 *   a. a call through the real toolsrv daemon (bin/toolsrv.js, with the bundled tools on its path), from
 *      ToolsrvConn over its Unix socket, as an agent makes it;
 *   b. the same tool, same policy, same environment, started directly under the sandbox launcher:
 *      b1 through the launcher service (`startSandboxed`, what toolsrv itself uses), and
 *      b2 by spawning the launcher command from Node (`sandboxCommand`, prepared once);
 *   c. 9P without a process, through the same connection: c1 reading the agent's `rev` file (walk, open,
 *      read, clunk), c2 a call of a builtin that answers at once (`process_output` of a process
 *      that does not exist: the call path of a, without a process).
 *
 * Then where a call spends its time inside toolsrv: a second daemon started with OLLIE_TOOLSRV_TIMING=1
 * returns each call's phases with its result; what is left of the time the agent waited is the 9P
 * messages and the client. Rounds and calls per round: BENCH_ROUNDS (default 5), BENCH_CALLS (default 60).
 */

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_CALLS ?? 60);
/**
 * The pause before each measurement (BENCH_GAP_MS), so that what one way leaves in flight — a process being
 * reaped, the connection opening its next call's fid — is not charged to the next. Agents pause longer.
 */
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 3);
const WARMUP = 30;

const NOOP = shTool("noop", "# ollie:parallel read\n", "echo ok");
const s = scratch("toolsrv-bench-");
const tool = s.tool("noop", NOOP);
const memory = join(s.root, "memory");
const scratches = [s];
const daemons: Daemon[] = [];
const conns: ToolsrvConn[] = [];

/** An agent's connection to a daemon of its own (each daemon has its own scratch area and socket). */
async function agent(timing: boolean): Promise<ToolsrvConn> {
  const own = timing ? scratch("toolsrv-bench-timed-") : s;
  if (own !== s) {
    scratches.push(own);
    own.tool("noop", NOOP);
  }
  const env = { OLLIE_MEMORY_PATH: join(own.root, "memory"), ...(timing && { OLLIE_TOOLSRV_TIMING: "1" }) };
  const daemon = await startDaemon(own, [], env);
  daemons.push(daemon);
  const conn = await daemon.conn("bench", { autoLoad: ["noop"], env: { LANG: "C.UTF-8" } });
  conns.push(conn);
  return conn;
}

try {
  const plain = await agent(false);
  const timed = await agent(true);

  // What toolsrv gives the tool: its policy (with the memory directory, the tool's directory and Node's
  // installation) and its environment (its base, the session's, the agent's name, the tool's name).
  const nodePrefix = join(process.execPath, "..", "..");
  const policy = withLayer(
    await resolvePolicy({
      env: homes(s),
      layers: [{ layer: { filesystem: { rw: [memory] } }, source: "toolsrv (the memory directory)" }],
    }),
    { filesystem: { rox: [s.tools, nodePrefix] } },
    "tool noop",
  );
  const env = {
    PATH: `${join(process.execPath, "..")}:/usr/local/bin:/usr/bin:/bin`,
    OLLIE_MEMORY_PATH: memory,
    LANG: "C.UTF-8",
    OLLIE_UNAME: "bench",
    OLLIE_TOOL: "noop",
  };
  const prepared = await sandboxCommand(tool, [], { policy, cwd: s.work, env });

  const expectOk = (out: string, how: string) => {
    if (out !== "ok\n") throw new Error(`${how}: unexpected output ${JSON.stringify(out)}`);
  };

  const ways = {
    "a  toolsrv call": async () => {
      const r = await plain.call("noop", {}, new AbortController().signal);
      expectOk(r.output, "toolsrv");
    },
    "b1 launcher service": async () => {
      const child = await startSandboxed(tool, [], { policy, cwd: s.work, env, timeoutMs: 120_000 });
      child.stdin.end("{}\n");
      const chunks: Buffer[] = [];
      child.stdout.on("data", (c: Buffer) => chunks.push(c));
      child.stderr.resume();
      const closed = (r: NodeJS.ReadableStream) => new Promise((done) => r.once("close", done));
      await Promise.all([child.exit, closed(child.stdout), closed(child.stderr)]);
      expectOk(Buffer.concat(chunks).toString(), "launcher service");
    },
    "b2 launcher spawned": () =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(prepared.file, prepared.args, { cwd: s.work, env, stdio: "pipe" });
        const chunks: Buffer[] = [];
        child.stdout.on("data", (c: Buffer) => chunks.push(c));
        child.stderr.resume();
        child.stdin.on("error", () => {}); // the tool need not read its arguments
        child.stdin.end("{}\n");
        child.on("error", reject);
        child.on("close", () => {
          try {
            expectOk(Buffer.concat(chunks).toString(), "launcher spawned");
            resolve();
          } catch (error) {
            reject(error);
          }
        });
      }),
    "c1 9P read of rev": async () => {
      if (!(await plain.revision())) throw new Error("no revision");
    },
    "c2 builtin call": async () => {
      const r = await plain.callRaw(
        { tool: "process_output", args: { id: 1e9 } },
        new AbortController().signal,
      );
      if (!r.output.startsWith("no process")) throw new Error(`process_output: unexpected ${r.output}`);
    },
  } as const;
  type Way = keyof typeof ways;
  const names = Object.keys(ways) as Way[];

  const phases = new Map<string, number[]>();
  const timedCall = async () => {
    await pause();
    const start = performance.now();
    const r = await timed.callRaw({ tool: "noop", args: {} }, new AbortController().signal);
    const total = performance.now() - start;
    expectOk(r.output, "timed toolsrv");
    const inside = Object.values(r.timing ?? {}).reduce((a, b) => a + b, 0);
    for (const [phase, ms] of [...Object.entries(r.timing ?? {}), ["9P and client", total - inside] as const])
      phases.set(phase, [...(phases.get(phase) ?? []), ms]);
    phases.set("total", [...(phases.get("total") ?? []), total]);
  };

  const pause = () => new Promise((resolve) => setTimeout(resolve, GAP_MS));
  const time = async (run: () => Promise<unknown>) => {
    await pause();
    const start = performance.now();
    await run();
    return performance.now() - start;
  };
  const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
  const min = (xs: number[]) => sorted(xs)[0]!;
  const median = (xs: number[]) => {
    const o = sorted(xs);
    const m = o.length >> 1;
    return o.length % 2 ? o[m]! : (o[m - 1]! + o[m]!) / 2;
  };
  const ms = (x: number) => `${x.toFixed(2)} ms`;

  for (let i = 0; i < WARMUP; i++) {
    for (const name of names) await ways[name]();
    await timedCall();
  }
  phases.clear();

  console.log(
    `toolsrv call cost (node ${process.version}, ${ROUNDS} rounds of ${CALLS} interleaved calls ${GAP_MS} ms apart, launcher ${prepared.args.length} arguments)\n`,
  );
  const all = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Way, number[]>;
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Way, number[]>;
    for (let i = 0; i < CALLS; i++) {
      // A different order each time, so no way always runs right after another.
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length]!;
        times[name].push(await time(ways[name]));
      }
      await timedCall();
    }
    for (const n of names) all[n].push(...times[n]);
    const ratio = median(times["a  toolsrv call"]) / median(times["b1 launcher service"]);
    ratios.push(ratio);
    console.log(
      `round ${round}: ${names.map((n) => `${n.slice(0, 2).trim()} ${median(times[n]).toFixed(2)}`).join(", ")} ms (medians); a/b1 ${ratio.toFixed(2)}, a/b2 ${(median(times["a  toolsrv call"]) / median(times["b2 launcher spawned"])).toFixed(2)}`,
    );
  }

  console.log(`\n| measure (${ROUNDS * CALLS} each) | min | median |`);
  console.log("| --- | --- | --- |");
  for (const n of names) console.log(`| ${n} | ${ms(min(all[n]))} | ${ms(median(all[n]))} |`);
  const a = all["a  toolsrv call"];
  for (const [b, label] of [
    ["b1 launcher service", "a/b1"],
    ["b2 launcher spawned", "a/b2"],
  ] as const) {
    console.log(
      `| ratio ${label} | ${(min(a) / min(all[b])).toFixed(2)} | ${(median(a) / median(all[b])).toFixed(2)} |`,
    );
  }
  console.log(
    `\nratio a/b1 by round (median/median): ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${median(ratios).toFixed(2)}`,
  );
  const b1 = all["b1 launcher service"];
  const summary = process.env.OLLIE_BENCH_SUMMARY;
  if (summary)
    appendFileSync(
      summary,
      `${JSON.stringify({
        order: 2,
        measure:
          "a tool call through toolsrv (real daemon, 9P over a Unix socket) vs the same tool started directly by the launcher service",
        ours: `${ms(min(a))} / ${ms(median(a))}`,
        baseline: `${ms(min(b1))} / ${ms(median(b1))}`,
        ratio: `${(min(a) / min(b1)).toFixed(2)}× / ${(median(a) / median(b1)).toFixed(2)}× (min / median)`,
        goal: "≤ 1.5×",
        met: median(a) / median(b1) <= 1.5,
      })}\n`,
    );

  console.log(`\nwhere a call spends its time (OLLIE_TOOLSRV_TIMING=1, ${ROUNDS * CALLS} calls)\n`);
  console.log("| phase | min | median |");
  console.log("| --- | --- | --- |");
  for (const [phase, xs] of phases) console.log(`| ${phase} | ${ms(min(xs))} | ${ms(median(xs))} |`);
} finally {
  for (const c of conns) await c.close().catch(() => {});
  for (const d of daemons) await d.stop().catch(() => {});
  for (const x of scratches) x.remove();
}
