import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { peerCredentials } from "./peer-credentials.js";

const dir = mkdtempSync(join(tmpdir(), "peer-cred-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("peerCredentials", () => {
  it("names the process, user and group that connected to a Unix socket", async () => {
    const path = join(dir, "s.sock");
    const accepted = new Promise<Socket>((resolve) => {
      const server = createServer((socket) => {
        server.close();
        resolve(socket);
      });
      server.listen(path);
    });
    // Another process connects and waits for the server to hang up.
    const peer = execa(process.execPath, [
      "-e",
      `require("node:net").connect(${JSON.stringify(path)}).on("close", () => process.exit(0))`,
    ]);
    const socket = await accepted;
    const who = await peerCredentials(socket);
    expect(who).toEqual({ pid: peer.pid, uid: process.getuid!(), gid: process.getgid!() });
    socket.destroy();
    await peer;
  });
});
