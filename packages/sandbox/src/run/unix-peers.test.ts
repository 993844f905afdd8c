import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PeerCredentialsReader } from "./peer-credentials-reader.js";
import { unixPeers } from "./unix-peers.js";

const dir = mkdtempSync(join(tmpdir(), "unix-peers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const me = process.getuid!();
const credentials = new PeerCredentialsReader();
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A node process (as `user`: setpriv's arguments) that connects to a new socket; the socket accepted. */
async function peerOf(name: string, user: string[] = []) {
  const path = join(dir, name);
  let accept: (socket: Socket) => void = () => {};
  const accepted = new Promise<Socket>((resolve) => {
    accept = resolve;
  });
  const server = createServer({ allowHalfOpen: true }, (socket) => accept(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  // Only a wrong mode would let another user reach it: who connected is what is tested here.
  chmodSync(dir, 0o755);
  chmodSync(path, 0o666);
  const script = `require("node:net").connect(${JSON.stringify(path)}).on("close", () => process.exit(0))`;
  const peer = user.length
    ? execa("setpriv", [...user, process.execPath, "-e", script], { reject: false })
    : execa(process.execPath, ["-e", script], { reject: false });
  return { socket: await accepted, peer };
}

describe("unixPeers", () => {
  it("names the daemon's own user the owner, and root too, by uid", async () => {
    const { socket, peer } = await peerOf("own.sock");
    expect(await unixPeers(credentials, me)(socket)).toEqual({ key: `uid ${me}`, owner: true });
    // Seen by a daemon of another user, this process is the owner only if it is root.
    expect(await unixPeers(credentials, me + 1)(socket)).toEqual({ key: `uid ${me}`, owner: me === 0 });
    socket.destroy();
    await peer;
  });

  it.skipIf(me !== 0)("names another user by its uid, never the owner", async () => {
    const { socket, peer } = await peerOf("other.sock", ["--reuid=65534", "--regid=65534", "--clear-groups"]);
    expect(await unixPeers(credentials, me)(socket)).toEqual({ key: "uid 65534", owner: false });
    socket.destroy();
    await peer;
  });

  it("counts a peer that cannot be told as unidentified, never the owner, and says why", async () => {
    const { socket, peer } = await peerOf("gone.sock");
    peer.kill("SIGKILL");
    await peer;
    const why: string[] = [];
    expect(await unixPeers(new PeerCredentialsReader(), me, (e) => why.push(e.message))(socket)).toEqual({
      key: "unidentified",
    });
    expect(why).toEqual([expect.stringMatching(/exited before it could be identified$/)]);
    socket.destroy();
  });
});
