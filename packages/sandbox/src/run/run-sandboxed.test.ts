import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bash, type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";

let s: Scratch;
beforeAll(async () => {
  s = await scratch();
});
afterAll(() => s.cleanup());

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

  it("refuses to start when the signal has already aborted", async () => {
    await expect(s.run("true", [], { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });
});
