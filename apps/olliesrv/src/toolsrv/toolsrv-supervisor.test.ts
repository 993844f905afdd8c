import { createLogger } from "@ollie/log";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ToolsrvExit, ToolsrvProcess } from "./toolsrv-process.js";
import { ToolsrvDownError, ToolsrvSupervisor } from "./toolsrv-supervisor.js";

/**
 * The supervisor's own logic over stand-in processes (the real toolsrv's deaths are olliesrv's
 * toolsrv-restart.test.ts): how soon it starts toolsrv again, what it says, and what it shows meanwhile.
 * Fake timers drive the waits between starts.
 */
interface Fake {
  process: ToolsrvProcess;
  die(exit?: Partial<ToolsrvExit>): void;
}

let pid = 100;
let started: Fake[];
/** Starts that fail (toolsrv ends before it serves), in order, before the next succeeds. */
let failing: number;
/** What a start waits for before it serves, when set. */
let gate: Promise<void> | undefined;
let lines: string[];

async function fakeStart(): Promise<ToolsrvProcess> {
  await gate;
  if (failing > 0) {
    failing--;
    throw new Error("toolsrv exited (exit status 1) before it served");
  }
  let die: (exit: ToolsrvExit) => void = () => {};
  const exited = new Promise<ToolsrvExit>((resolve) => {
    die = resolve;
  });
  const fake: Fake = {
    process: {
      address: "unix!/nowhere",
      pid: ++pid,
      exited,
      stop: async () => die({ exitCode: 0, signal: undefined }),
    },
    die: (exit) => die({ exitCode: undefined, signal: "SIGKILL", ...exit }),
  };
  started.push(fake);
  return fake.process;
}

const BACKOFF = { firstMs: 500, mostMs: 4000, stableMs: 60_000 };

async function supervisor(): Promise<ToolsrvSupervisor> {
  const log = createLogger({ program: "olliesrv", stream: { write: (line: string) => lines.push(line) } });
  return ToolsrvSupervisor.start("unix!/nowhere", { start: fakeStart, log, backoff: BACKOFF });
}

/** Lets the promise callbacks a death sets off run (they are microtasks: no timer is advanced). */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
  started = [];
  failing = 0;
  gate = undefined;
  lines = [];
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the toolsrv supervisor", () => {
  it("starts toolsrv again at once after a death, saying how it died, and shows the restart", async () => {
    const s = await supervisor();
    expect(s.status()).toMatchObject({ state: "up", pid: 101, restarts: 0 });
    const ended: string[] = [];
    let ups = 0;
    s.onEnded((why) => ended.push(why));
    s.onUp(() => ups++);
    started[0]!.die();
    await settle();
    expect(started).toHaveLength(2);
    expect(s.status()).toMatchObject({ state: "up", pid: 102, restarts: 1, lastExit: "killed by SIGKILL" });
    expect(s.run).toBe(2);
    expect(s.hasEnded(1)).toBe(true);
    expect(s.hasEnded(2)).toBe(false);
    expect(ended).toEqual(["killed by SIGKILL"]);
    expect(ups).toBe(1);
    expect(lines.find((l) => l.includes(" ERROR "))).toMatch(
      /ERROR olliesrv: toolsrv \(pid 101\) died after 0\.0 s: killed by SIGKILL; starting it again\./,
    );
    expect(lines.at(-1)).toMatch(/INFO +olliesrv: toolsrv is back \(pid 102\)/);
  });

  it("waits longer each time when it keeps dying, up to the most, and at once again after a stable run", async () => {
    const s = await supervisor();
    const waits: number[] = [];
    for (let death = 1; death <= 6; death++) {
      const before = started.length;
      started.at(-1)!.die({ exitCode: 3, signal: undefined });
      await settle();
      let waited = 0;
      while (started.length === before) {
        expect(s.status()).toMatchObject({ state: "down", lastExit: "exit status 3" });
        await vi.advanceTimersByTimeAsync(100);
        waited += 100;
      }
      waits.push(waited);
    }
    // The first death: at once; then 0.5 s, doubling, at most 4 s.
    expect(waits).toEqual([0, 500, 1000, 2000, 4000, 4000]);
    expect(lines.filter((l) => l.includes(" ERROR "))).toHaveLength(6);
    expect(lines.find((l) => l.includes("in 4.0 s"))).toMatch(
      /starting it again in 4\.0 s \(it died 5 times in a row\)/,
    );
    // A toolsrv that served long enough is started again at once when it dies.
    await vi.advanceTimersByTimeAsync(BACKOFF.stableMs);
    started.at(-1)!.die();
    await settle();
    expect(s.status()).toMatchObject({ state: "up", restarts: 7 });
  });

  it("counts a start that fails as a death, and says it is down until the next start", async () => {
    const s = await supervisor();
    failing = 2;
    started[0]!.die();
    await settle();
    // The start at once failed; the next waits 0.5 s.
    expect(s.status()).toMatchObject({ state: "down", restarts: 0, lastExit: "killed by SIGKILL" });
    expect(s.status().nextStart).toBeInstanceOf(Date);
    const error = await s.ready(AbortSignal.timeout(60_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolsrvDownError);
    expect((error as Error).message).toMatch(
      /^toolsrv is down since \S+ \(killed by SIGKILL, 0 restarts so far\); olliesrv starts it again at \S+$/,
    );
    expect(lines.filter((l) => l.includes("could not be started again"))).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(lines.filter((l) => l.includes("could not be started again"))).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(s.status()).toMatchObject({ state: "up", restarts: 1 });
    expect(await s.ready(AbortSignal.timeout(60_000))).toBe(2);
  });

  it("lets a dial wait out a short wait before the next start, when it is patient enough", async () => {
    const s = await supervisor();
    failing = 1;
    started[0]!.die();
    await settle();
    // The start at once failed: the next is 0.5 s away.
    expect(s.status().state).toBe("down");
    let answered: number | undefined;
    const ready = s.ready(AbortSignal.timeout(60_000), 1000).then((run) => {
      answered = run;
    });
    await vi.advanceTimersByTimeAsync(400);
    expect(answered).toBeUndefined();
    await vi.advanceTimersByTimeAsync(100);
    await ready;
    expect(answered).toBe(2);
  });

  it("lets a dial wait while toolsrv is being started again", async () => {
    const s = await supervisor();
    let release = () => {};
    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    started[0]!.die();
    await settle();
    expect(s.status().state).toBe("restarting");
    let answered: number | undefined;
    const ready = s.ready(AbortSignal.timeout(60_000)).then((run) => {
      answered = run;
    });
    await settle();
    expect(answered).toBeUndefined();
    release();
    await ready;
    expect(answered).toBe(2);
  });

  it("starts nothing again once stopped, or told the daemon is stopping", async () => {
    const s = await supervisor();
    s.hold();
    started[0]!.die({ signal: "SIGINT" });
    await settle();
    expect(started).toHaveLength(1);
    await s.stop();
    expect(lines.some((l) => l.includes(" ERROR "))).toBe(false);
    const t = await supervisor();
    await t.stop();
    await settle();
    expect(started).toHaveLength(2);
    expect(lines.some((l) => l.includes(" ERROR "))).toBe(false);
  });
});
