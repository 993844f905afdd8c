import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Daemon, scratch, shTool, startDaemon, WAIT } from "./daemon.js";

/**
 * A sandboxed tool reaches toolsrv's own socket (Landlock before ABI 9 does not govern connecting to a socket
 * by its path). However many connections it holds there, the one who runs toolsrv — olliesrv, as its user and
 * under no sandbox — still gets in: the kernel names each peer, and the agents' tools share one peer's limit.
 */
const s = scratch("toolsrv-flood-");
const FLOOD = 1100;
s.tool(
  "flood",
  shTool(
    "flood",
    "",
    `exec python3 -c '
import os, socket, sys
held = []
for i in range(${FLOOD}):
    c = socket.socket(socket.AF_UNIX)
    c.connect(os.environ["OLLIE_TEST_SOCKET"])
    held.append(c)
open("flooded", "w").close()
open("go", "r").read()
print(len(held), "connections made")
'`,
  ),
);

let daemon: Daemon;
beforeAll(async () => {
  daemon = await startDaemon(s, ["--default-tools", "flood"]);
});
afterAll(async () => {
  await daemon?.stop();
  s.remove();
});

describe("a tool that floods toolsrv's socket", () => {
  it("holds its share, and the owner is still served", async () => {
    await execa("mkfifo", [join(s.work, "go")]);
    const socket = daemon.address.replace(/^unix!/, "");
    const tools = await daemon.conn("s1.flooder", {
      env: { PATH: "/usr/bin:/bin", OLLIE_TEST_SOCKET: socket },
    });
    const flood = tools.call("flood", {}, new AbortController().signal);
    flood.catch(() => {}); // awaited below, once the owner's connections were tried
    await vi.waitFor(() => expect(existsSync(join(s.work, "flooded"))).toBe(true), WAIT);
    // Every one of the flood's connections is made; past its share toolsrv closes them as they arrive.
    for (let i = 0; i < 3; i++) {
      const owner = await daemon.conn(`s2.agent${i}`);
      expect((await owner.list()).map((t) => t.name)).toContain("flood");
      await owner.close();
    }
    await writeFile(join(s.work, "go"), "go\n");
    expect((await flood).output).toContain(`${FLOOD} connections made`);
    await vi.waitFor(
      () => expect(daemon.stderr()).toMatch(/refused a connection from uid \d+ sandboxed/),
      WAIT,
    );
    await tools.close();
  });
});
