import { randomUUID } from "node:crypto";
import { processesMarked } from "@ollie/sandbox/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { type Daemon, scratch, shTool, startDaemon, WAIT } from "./daemon.js";

/**
 * Whatever a tool starts ends with its call, however it detached and however the call ends. Each call's
 * environment carries a mark; afterwards no process on the machine may carry it.
 */

const s = scratch("toolsrv-trees-");
afterAll(() => s.remove());

/** Starts a child that calls setsid, one that double-forks, and a daemon's double fork into a new session. */
const DETACH = [
  "setsid sleep 1000 &",
  "( (sleep 1000 &) & )",
  `/usr/bin/python3 -c 'import os, time; os.fork() and os._exit(0); os.setsid(); os.fork() and os._exit(0); time.sleep(1000)'`,
].join("\n");
const TREE_SIZE = 5; // the tool's shell, its sleep and the three detached processes
s.tool("detacher", shTool("detacher", "# ollie:timeout 1\n", `${DETACH}\nsleep 1000`));
s.tool("detach_and_exit", shTool("detach_and_exit", "", `${DETACH}\necho started`));

/** Runs `tool` with a marked environment; `end` ends the call once its whole tree runs; then none is left. */
async function leavesNone(
  tool: string,
  end: (call: { daemon: Daemon; ac: AbortController }) => Promise<void>,
): Promise<void> {
  const daemon = await startDaemon(s, ["--default-tools", "detacher,detach_and_exit"]);
  const id = randomUUID();
  const marker = `OLLIE_TEST_MARK=${id}`;
  try {
    const conn = await daemon.conn("agent1", { env: { PATH: "/usr/bin:/bin", OLLIE_TEST_MARK: id } });
    const ac = new AbortController();
    const call = conn.call(tool, {}, ac.signal).catch((e: unknown) => e);
    if (tool !== "detach_and_exit")
      await vi.waitFor(() => expect(processesMarked(marker).length).toBeGreaterThanOrEqual(TREE_SIZE), WAIT);
    await end({ daemon, ac });
    await call;
    await vi.waitFor(() => expect(processesMarked(marker)).toEqual([]), WAIT);
  } finally {
    await daemon.stop().catch(() => {});
  }
}

describe("a tool that leaves setsid, double-forked and daemonized processes", () => {
  it("leaves none when it exits", async () => {
    await leavesNone("detach_and_exit", async () => {});
  });

  it("leaves none at its timeout", async () => {
    await leavesNone("detacher", async () => {});
  });

  it("leaves none when the caller gives up (the call's fid is flushed and clunked)", async () => {
    await leavesNone("detacher", async ({ ac }) => ac.abort(new Error("stop")));
  });

  it("leaves none when its process is killed through proc/", async () => {
    await leavesNone("detacher", async ({ daemon }) => {
      const conn = await daemon.conn("agent1");
      const [proc] = (await conn.processes()).filter((p) => p.status === "running");
      await conn.kill(proc!.id);
      await conn.close();
    });
  });

  it("leaves none when toolsrv is told to stop (SIGTERM)", async () => {
    await leavesNone("detacher", ({ daemon }) => daemon.stop());
  });

  it("leaves none when toolsrv is killed outright (SIGKILL)", async () => {
    await leavesNone("detacher", async ({ daemon }) => {
      daemon.child.kill("SIGKILL");
      await daemon.child;
    });
  });
});
