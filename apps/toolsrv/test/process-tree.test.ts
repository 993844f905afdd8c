import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { type Daemon, scratch, shTool, startDaemon } from "./daemon.js";

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

function marked(marker: string): number[] {
  return readdirSync("/proc")
    .filter((name) => {
      try {
        return (
          /^\d+$/.test(name) && readFileSync(`/proc/${name}/environ`, "latin1").split("\0").includes(marker)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(test: () => boolean, limitMs = 10_000): Promise<void> {
  for (const end = Date.now() + limitMs; !test() && Date.now() < end; )
    await new Promise((r) => setTimeout(r, 20));
}

/** Runs `tool` with a marked environment; `end` ends the call once its whole tree runs. */
async function survivors(
  tool: string,
  end: (call: { daemon: Daemon; ac: AbortController }) => Promise<void>,
) {
  const daemon = await startDaemon(s, ["--default-tools", "detacher,detach_and_exit"]);
  const id = randomUUID();
  const marker = `OLLIE_TEST_MARK=${id}`;
  try {
    const conn = await daemon.conn("agent1", { env: { PATH: "/usr/bin:/bin", OLLIE_TEST_MARK: id } });
    const ac = new AbortController();
    const call = conn.call(tool, {}, ac.signal).catch((e: unknown) => e);
    await until(() => marked(marker).length >= TREE_SIZE || tool === "detach_and_exit");
    await end({ daemon, ac });
    await call;
    await until(() => marked(marker).length === 0, 5000);
    return marked(marker);
  } finally {
    await daemon.stop().catch(() => {});
  }
}

describe("a tool that leaves setsid, double-forked and daemonized processes", () => {
  it("leaves none when it exits", async () => {
    expect(await survivors("detach_and_exit", async () => {})).toEqual([]);
  });

  it("leaves none at its timeout", async () => {
    expect(await survivors("detacher", async () => {})).toEqual([]);
  });

  it("leaves none when the caller gives up (the call's fid is flushed and clunked)", async () => {
    expect(await survivors("detacher", async ({ ac }) => ac.abort(new Error("stop")))).toEqual([]);
  });

  it("leaves none when its process is killed through proc/", async () => {
    const left = await survivors("detacher", async ({ daemon }) => {
      const conn = await daemon.conn("agent1");
      const [proc] = (await conn.processes()).filter((p) => p.status === "running");
      await conn.kill(proc!.id);
      await conn.close();
    });
    expect(left).toEqual([]);
  });

  it("leaves none when toolsrv is told to stop (SIGTERM)", async () => {
    expect(await survivors("detacher", ({ daemon }) => daemon.stop())).toEqual([]);
  });

  it("leaves none when toolsrv is killed outright (SIGKILL)", async () => {
    const left = await survivors("detacher", async ({ daemon }) => {
      daemon.child.kill("SIGKILL");
      await daemon.child;
    });
    expect(left).toEqual([]);
  });
});
