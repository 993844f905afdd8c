import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bash, type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";

let s: Scratch;
beforeAll(async () => {
  s = await scratch();
});
afterAll(() => s.cleanup());

/** Fields of /proc/PID/stat after the command name: state, ppid, pgrp, … */
function procStat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** Whether a process runs. A zombie does not: on machines whose init never reaps, zombies linger. */
function alive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat[0] !== "Z";
}

/** The running processes of a process group. */
function liveMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const stat = procStat(pid);
      return stat !== undefined && stat[0] !== "Z" && Number(stat[2]) === pgid;
    });
}

async function waitForFile(path: string): Promise<string> {
  for (let i = 0; i < 500; i++) {
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8");
      if (text.endsWith("\n")) return text;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${path} never appeared`);
}

describe("running a command under the sandbox", () => {
  it("passes exit statuses and terminating signals through unchanged", async () => {
    expect((await bash(s, "exit 3")).code).toBe(3);
    const killed = await s.run("bash", ["-c", "kill -USR1 $$"]);
    expect(killed).toMatchObject({ exitCode: null, signal: "SIGUSR1" });
  });

  it("passes standard input, output and error through", async () => {
    const r = await s.run("bash", ["-c", "tr a-z A-Z; echo to-stderr >&2"], { stdin: "hello sandbox\n" });
    expect(r.stdout.toString()).toBe("HELLO SANDBOX\n");
    expect(r.stderr.toString()).toBe("to-stderr\n");
  });

  it("passes large outputs through whole", async () => {
    const r = await s.run("head", ["-c", String(20 * 1024 * 1024), "/dev/zero"]);
    expect(r.stdout.length).toBe(20 * 1024 * 1024);
    expect(r.truncated).toBe(false);
    const cut = await s.run("head", ["-c", String(1024 * 1024), "/dev/zero"], { maxBuffer: 1000 });
    expect(cut.truncated).toBe(true);
  });

  it("tells the launcher's own refusals apart: 127 not found, 126 cannot execute", async () => {
    const missing = await s.run("no-such-command-anywhere", []);
    expect(missing).toMatchObject({
      exitCode: 127,
      launcherError: "no-such-command-anywhere: command not found",
    });
    const plain = await bash(s, "echo ollie-sandbox: pretend >&2; exit 125");
    expect(plain.code).toBe(125);
    expect(plain.result.launcherError).toBe("pretend");
  });

  it("leaves no process behind when aborted: the whole process group is killed", async () => {
    const pids = join(s.rw, "pids-abort");
    const ac = new AbortController();
    const running = s.run(
      "bash",
      ["-c", `sleep 100 & sleep 100 & echo "$$ $(jobs -p | tr '\\n' ' ')" > ${pids}; wait`],
      {
        signal: ac.signal,
      },
    );
    const [leader, ...children] = (await waitForFile(pids)).trim().split(/\s+/).map(Number);
    expect(children).toHaveLength(2);
    ac.abort();
    const r = await running;
    expect(r).toMatchObject({ aborted: true, signal: "SIGKILL" });
    for (const pid of [leader!, ...children]) expect(alive(pid)).toBe(false);
    expect(liveMembers(leader!)).toEqual([]);
  });

  it("kills the process group at the timeout", async () => {
    const pids = join(s.rw, "pids-timeout");
    const r = await s.run("bash", ["-c", `sleep 100 & echo $! > ${pids}; wait`], { timeoutMs: 300 });
    expect(r).toMatchObject({ timedOut: true, signal: "SIGKILL" });
    expect(alive(Number(readFileSync(pids, "utf8")))).toBe(false);
  });

  it("does not wait for, or leave, background processes once the command exits", async () => {
    const pids = join(s.rw, "pids-background");
    const started = Date.now();
    const r = await s.run("bash", ["-c", `sleep 100 & echo $! > ${pids}; echo done`]);
    expect(r.stdout.toString()).toBe("done\n");
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(alive(Number(readFileSync(pids, "utf8")))).toBe(false);
  });

  it("refuses to start when the signal has already aborted", async () => {
    await expect(s.run("true", [], { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });
});
