import { realpathSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Scratch, scratch } from "../__fixtures__/sandbox-fixture.js";
import { confinedBeyond, ownConfinement, peerCredentials } from "./peer-credentials.js";
import { PeerCredentialsReader } from "./peer-credentials-reader.js";

let s: Scratch;
beforeAll(async () => {
  s = await scratch();
});
afterAll(() => s.cleanup());

/** A script for node that connects to the socket at PATH and waits for the server to hang up. */
const connectAndWait = (path: string) =>
  `require("node:net").connect(${JSON.stringify(path)}).on("close", () => process.exit(0))`;

/** Listens at `name` in the scratch area and hands back the first socket accepted. */
function acceptOne(name: string): { path: string; accepted: Promise<Socket>; server: Server } {
  const path = join(s.rw, name);
  let server!: Server;
  const accepted = new Promise<Socket>((resolve) => {
    // Half-open: a socket whose peer is gone stays open on this side, as a busy server's may.
    server = createServer({ allowHalfOpen: true }, (socket) => {
      server.close();
      resolve(socket);
    });
    server.listen(path);
  });
  return { path, accepted, server };
}

describe("peerCredentials", () => {
  it("names the process, user and group that connected to a Unix socket, confined no more than this one", async () => {
    const { path, accepted } = acceptOne("plain.sock");
    const peer = execa(process.execPath, ["-e", connectAndWait(path)]);
    const socket = await accepted;
    const who = await peerCredentials(socket);
    expect(who).toMatchObject({ pid: peer.pid, uid: process.getuid!(), gid: process.getgid!() });
    expect(who.confinement).toEqual(ownConfinement());
    expect(confinedBeyond(who.confinement)).toBe(false);
    socket.destroy();
    await peer;
  });

  it("tells a command the launcher runs by the seccomp filter and no_new_privs it cannot shed", async () => {
    const { path, accepted } = acceptOne("sandboxed.sock");
    const policy = await s.policy({
      filesystem: { rox: [dirname(realpathSync(process.execPath))], ro: ["/etc/ssl"] },
    });
    const peer = s.run(realpathSync(process.execPath), ["-e", connectAndWait(path)], { policy });
    const socket = await accepted;
    const who = await peerCredentials(socket);
    const own = ownConfinement();
    expect(who.uid).toBe(process.getuid!());
    expect(who.confinement).toMatchObject({ noNewPrivs: true, seccompMode: 2 });
    expect(who.confinement.seccompFilters).toBeGreaterThan(own.seccompFilters!);
    expect(confinedBeyond(who.confinement)).toBe(true);
    socket.destroy();
    expect((await peer).exitCode).toBe(0);
  });

  it("fails when the peer exited before it was asked about, rather than name whoever has its pid now", async () => {
    const { path, accepted, server } = acceptOne("gone.sock");
    const peer = execa(process.execPath, ["-e", connectAndWait(path)]);
    const socket = await accepted;
    peer.kill("SIGKILL");
    await peer.catch(() => {});
    // The peer is gone: its pid may be anyone's now, so it is not named.
    await expect(peerCredentials(socket)).rejects.toThrow(
      /cannot tell who is at the other end of the socket: .*exited before it could be identified/,
    );
    socket.destroy();
    server.close();
    await expect(peerCredentials(socket)).rejects.toThrow(
      "cannot tell who is at the other end of the socket: it is closed",
    );
  });
});

describe("PeerCredentialsReader", () => {
  it("answers for hundreds of sockets a batch at a time, and a peer gone meanwhile only for its own", async () => {
    const living = acceptOne("living.sock");
    const gone = acceptOne("gone-in-batch.sock");
    const livingPeer = execa(process.execPath, ["-e", connectAndWait(living.path)]);
    const gonePeer = execa(process.execPath, ["-e", connectAndWait(gone.path)]);
    const [livingSocket, goneSocket] = await Promise.all([living.accepted, gone.accepted]);
    gonePeer.kill("SIGKILL");
    await gonePeer.catch(() => {});
    // 300 connections of this process's own, more than one batch holds.
    const path = join(s.rw, "many.sock");
    const own: Socket[] = [];
    const server = createServer({ allowHalfOpen: true }, (socket) => own.push(socket));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const clients = Array.from({ length: 300 }, () => connect(path));
    await vi.waitFor(() => expect(own).toHaveLength(300), { timeout: 10_000 });

    const reader = new PeerCredentialsReader({ maxBatch: 128 });
    const asked = [goneSocket, ...own, livingSocket].map((socket) => reader.read(socket));
    const [goneAnswer, ...rest] = await Promise.allSettled(asked);
    expect(goneAnswer).toMatchObject({
      status: "rejected",
      reason: { message: expect.stringMatching(/exited before it could be identified/) },
    });
    const answers = rest.map((a) => (a.status === "fulfilled" ? a.value.pid : a.reason));
    expect(answers).toEqual([...Array(300).fill(process.pid), livingPeer.pid]);
    // Asked again, a socket has the same answer, not a new question.
    expect(reader.read(livingSocket)).toBe(asked.at(-1));

    for (const c of clients) c.destroy();
    livingSocket.destroy();
    goneSocket.destroy();
    server.close();
    await livingPeer;
  });
});
