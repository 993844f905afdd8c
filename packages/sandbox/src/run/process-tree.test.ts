import { randomUUID } from "node:crypto";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";
import { ended, started, survivors } from "../__fixtures__/survivors.js";
import { sandboxCommand } from "./prepare.js";
import { startSandboxed } from "./run-sandboxed.js";

/**
 * Whatever a sandboxed command starts ends with it, however it detached. Each test marks the command's
 * environment and counts, in /proc, the processes still carrying the mark afterwards.
 */

let s: Scratch;
beforeAll(async () => {
  s = await scratch();
});
afterAll(() => s.cleanup());

/** Ways a command leaves something running, each starting one `sleep` that outlives the shell. */
const DETACHED: Record<string, string> = {
  setsid: "setsid sleep 300 &",
  "double fork": "( (sleep 300 &) & )",
  "daemon(3)": `${"PROBE"} daemon 300`,
  nohup: "nohup sleep 300 >/dev/null 2>&1 &",
  "setsid holding stdout": "setsid bash -c 'sleep 300; echo late' &",
};

function mark(): { marker: string; env: NodeJS.ProcessEnv } {
  const id = randomUUID();
  return { marker: `OLLIE_TEST_MARK=${id}`, env: { ...s.env, OLLIE_TEST_MARK: id } };
}

const script = (how: string, then: string) => `${DETACHED[how]!.replace("PROBE", s.probe)}\n${then}`;

describe.each(Object.keys(DETACHED))("a command that leaves a process behind with %s", (how) => {
  it("leaves nothing when it exits", async () => {
    const { marker, env } = mark();
    const r = await s.run("bash", ["-c", script(how, "sleep 0.2; echo done")], { env });
    expect(r.stdout.toString()).toBe("done\n");
    await ended(marker);
  });

  it("leaves nothing at a timeout", async () => {
    const { marker, env } = mark();
    const r = await s.run("bash", ["-c", script(how, "sleep 300")], { env, timeoutMs: 500 });
    expect(r.timedOut).toBe(true);
    await ended(marker);
  });

  it("leaves nothing when aborted", async () => {
    const { marker, env } = mark();
    const ac = new AbortController();
    const running = s.run("bash", ["-c", script(how, "sleep 300")], { env, signal: ac.signal });
    await started(marker, 2);
    ac.abort();
    expect((await running).aborted).toBe(true);
    await ended(marker);
  });

  it("leaves nothing when its launcher itself is killed outright", async () => {
    const { marker, env } = mark();
    const child = await startSandboxed("bash", ["-c", script(how, "sleep 300")], {
      policy: await s.policy(),
      env,
      cwd: s.rw,
    });
    child.stdin.end();
    child.stdout.resume();
    child.stderr.resume();
    await started(marker, 2);
    process.kill(child.pid, "SIGKILL");
    expect(await child.exit).toMatchObject({ signal: "SIGKILL" });
    await ended(marker);
  });

  it("leaves nothing when the launcher's parent is killed outright", async () => {
    const { marker, env } = mark();
    const cmd = await sandboxCommand("bash", ["-c", script(how, "sleep 300")], {
      policy: await s.policy(),
      env,
      cwd: s.rw,
    });
    // A parent that only starts the launcher and waits, as toolsrv does; then SIGKILLed, as toolsrv may be.
    const parent = execa("bash", ["-c", '"$@" & wait', "parent", cmd.file, ...cmd.args], {
      env,
      extendEnv: false,
      reject: false,
    });
    await started(marker, 3);
    parent.kill("SIGKILL");
    await parent;
    await ended(marker);
  });
});

describe("signals", () => {
  it("passes SIGTERM to the command, which may finish cleanly within the grace period", async () => {
    const { marker, env } = mark();
    const cmd = await sandboxCommand(
      "bash",
      ["-c", "trap 'echo cleaned up; exit 0' TERM; setsid sleep 300 & sleep 300 & wait"],
      { policy: await s.policy(), env, cwd: s.rw },
    );
    const run = execa(cmd.file, cmd.args, { env, extendEnv: false, reject: false, cwd: s.rw });
    await started(marker, 4);
    run.kill("SIGTERM");
    const r = await run;
    expect(r).toMatchObject({ exitCode: 0, stdout: "cleaned up" });
    expect(survivors(marker)).toEqual([]);
  });

  it("kills a command that ignores SIGTERM, and all it started, after the grace period", async () => {
    const { marker, env } = mark();
    const cmd = await sandboxCommand("bash", ["-c", "trap '' TERM; setsid sleep 300 & sleep 300"], {
      policy: await s.policy(),
      env,
      cwd: s.rw,
    });
    const run = execa(cmd.file, ["--grace", "200", ...cmd.args], { env, extendEnv: false, reject: false });
    await started(marker, 3);
    run.kill("SIGTERM");
    expect((await run).signal).toBe("SIGKILL");
    expect(survivors(marker)).toEqual([]);
  });
});
