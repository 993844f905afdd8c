import { processGone } from "@ollie/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Daemon, scratch, startDaemon } from "./daemon.js";

const s = scratch("toolsrv-background-");
let daemon: Daemon;
beforeAll(async () => {
  daemon = await startDaemon(s, ["--default-tools", "shell"]);
});
afterAll(async () => {
  await daemon.stop();
  s.remove();
});

const never = new AbortController().signal;

describe("the shell tool in the background, through the daemon", () => {
  it("answers at once with a process id; process_output follows it, process_kill ends it, and no other agent reaches it", async () => {
    const alice = await daemon.conn("alice");
    const bob = await daemon.conn("bob");
    const started = await alice.call(
      "shell",
      { command: 'echo "pid $$"; while :; do echo tick; sleep 0.05; done', background: true },
      never,
    );
    const id = Number(/^started in the background as process (\d+);/.exec(started.output)?.[1]);
    expect(started.isError).toBeUndefined();
    expect(await alice.process(id)).toMatchObject({ tool: "shell", detached: true, status: "running" });

    let read = "";
    while (!read.includes("tick"))
      read += (await alice.call("process_output", { id, wait: 5 }, never)).output;
    expect(read).toMatch(new RegExp(`^process ${id} \\(shell\\): running\npid \\d+\n`));
    const pid = Number(/pid (\d+)/.exec(read)![1]);

    const none = `no process ${id} of yours: it never was, or it ended long enough ago that toolsrv forgot it`;
    expect(await bob.call("process_output", { id }, never)).toEqual({ output: none, isError: true });
    expect(await bob.call("process_kill", { id }, never)).toEqual({ output: none, isError: true });
    expect(processGone(pid)).toBe(false);

    expect((await alice.call("process_kill", { id }, never)).output).toBe(
      `process ${id} (shell) ended: cancelled. Its output can still be read with process_output.\n`,
    );
    expect(processGone(pid)).toBe(true);
    expect(await alice.process(id)).toMatchObject({ status: "cancelled" });
    expect((await alice.call("tool_active", {}, never)).output).toMatch(/^shell — Run a bash command/);
    await alice.close();
    await bob.close();
  });
});
