import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../__fixtures__/harness.js";
import { hmacAuth } from "../auth/hmac.js";
import type { AttachClaim, PeerIdentity } from "../auth/peer-identity.js";
import { NinepClient } from "../client/client.js";
import { NinepRemoteError } from "../client/errors.js";
import { OWRITE } from "../codec/constants.js";
import { decodeMessage } from "../codec/decode.js";
import { encodeMessage } from "../codec/encode.js";
import { FrameReader } from "../codec/frame-reader.js";
import { Errno } from "../codec/linux/constants.js";
import type { RMessage } from "../codec/types.js";
import { Ramfs } from "../ramfs/ramfs.js";
import { NinepServer } from "./server.js";

const dir = mkdtempSync(join(tmpdir(), "ninep-identify-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A server whose listener requires a key on every attach, except that `identify` names the peer. */
async function identifyingServer(identify: (socket: Socket) => Promise<PeerIdentity>, name: string) {
  const errors: string[] = [];
  const server = new NinepServer(new Ramfs(), {
    auth: hmacAuth({ keyFor: () => Buffer.from("nobody knows this") }),
    onError: (err) => errors.push(err.message),
  });
  const path = join(dir, name);
  await server.listen(`unix!${path}`, { identify });
  return { server, address: `unix!${path}`, path, errors };
}

/** Sends frames on a raw socket and collects the replies. */
function rawClient(path: string) {
  const socket = connect(path);
  const replies: RMessage[] = [];
  const reader = new FrameReader(1 << 20);
  let closed = false;
  socket.on("data", (chunk) => {
    reader.push(chunk);
    for (let frame = reader.next(); frame; frame = reader.next())
      replies.push(decodeMessage(frame) as RMessage);
  });
  socket.on("close", () => {
    closed = true;
  });
  socket.on("error", () => {});
  return {
    replies,
    closed: () => closed,
    send: (m: Parameters<typeof encodeMessage>[0]) => socket.write(encodeMessage(m)),
    destroy: () => socket.destroy(),
  };
}

describe("a listener that identifies its peers", () => {
  it("attaches every client as the identity, without Tauth, whatever uname it names", async () => {
    const claims: AttachClaim[] = [];
    const { server, address } = await identifyingServer(async (socket) => {
      // As Node does to a socket it hands to a child process (which may be how the peer is identified).
      socket.pause();
      return { uname: "glenda", uid: 4321, admit: (claim) => void claims.push(claim) };
    }, "as-glenda");
    const client = await NinepClient.dial(address);
    const fsys = await client.attach({ uname: "mallory" });
    await fsys.create("made", { perm: 0o644, mode: OWRITE }).then((f) => f.close());
    expect((await fsys.stat("made")).uid).toBe("glenda");
    const linux = await NinepClient.dial(address, { dialect: "9P2000.L" });
    const lfsys = await linux.attach({ uname: "", nUname: 4321 });
    // Rgetattr numbers the owner: the identity's uid stands for its uname.
    expect((await lfsys.stat("made")).uid).toBe("4321");
    expect(claims).toEqual([
      { uname: "mallory", nUname: undefined, aname: "" },
      { uname: "", nUname: 4321, aname: "" },
    ]);
    client.close();
    linux.close();
    await server.close();
  });

  it("refuses an attach its identity does not admit, with the identity's words (EACCES in 9P2000.L)", async () => {
    const { server, address } = await identifyingServer(async () => {
      return {
        uname: "glenda",
        admit: ({ nUname }) => {
          if (nUname !== undefined && nUname !== 4321) throw new Error(`permission denied: user ${nUname}`);
        },
      };
    }, "admits");
    const linux = await NinepClient.dial(address, { dialect: "9P2000.L" });
    const refused = await linux.attach({ uname: "", nUname: 7 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NinepRemoteError);
    expect((refused as NinepRemoteError).errno).toBe(Errno.EACCES);
    await expect(linux.attach({ uname: "", nUname: 4321 })).resolves.toBeDefined();
    linux.close();
    await server.close();
  });

  it("answers Tauth 'authentication not required', as Linux clients expect of a server without auth", async () => {
    const { server, path } = await identifyingServer(async () => ({ uname: "glenda" }), "no-auth");
    const raw = rawClient(path);
    raw.send({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" });
    raw.send({ type: "Tauth", tag: 1, afid: 5, uname: "glenda", aname: "" });
    await eventually(() => raw.replies.length === 2);
    expect(raw.replies[1]).toEqual({ type: "Rerror", tag: 1, ename: "authentication not required" });
    raw.destroy();
    await server.close();
  });

  it("reads nothing before the peer is identified, and closes the connection unanswered when it is refused", async () => {
    let decide: (identity: PeerIdentity | Error) => void = () => {};
    let asked = 0;
    const { server, path, errors } = await identifyingServer(
      () =>
        new Promise((resolve, reject) => {
          asked++;
          decide = (d) => (d instanceof Error ? reject(d) : resolve(d));
        }),
      "slow",
    );
    const waiting = rawClient(path);
    waiting.send({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" });
    await eventually(() => asked === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(waiting.replies).toEqual([]);
    expect(server.stats().connections).toBe(0);
    decide({ uname: "glenda" });
    await eventually(() => waiting.replies.length === 1);
    expect(waiting.replies[0]).toMatchObject({ type: "Rversion", version: "9P2000" });

    const stranger = rawClient(path);
    stranger.send({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" });
    await eventually(() => asked === 2);
    decide(new Error("uid 1234 is not the owner's"));
    await eventually(() => stranger.closed());
    expect(stranger.replies).toEqual([]);
    expect(errors).toEqual(["refused a connection from unix: uid 1234 is not the owner's"]);
    waiting.destroy();
    await server.close();
  });

  it("holds at most maxIdentifying sockets of a listener while their peers are identified", async () => {
    const errors: string[] = [];
    const server = new NinepServer(new Ramfs(), {
      limits: { maxIdentifying: 1 },
      onError: (err) => errors.push(err.message),
    });
    const path = join(dir, "full");
    await server.listen(`unix!${path}`, { identify: () => new Promise(() => {}) });
    const first = rawClient(path);
    await eventually(() => server.stats().identifying === 1);
    const second = rawClient(path);
    await eventually(() => second.closed());
    expect(first.closed()).toBe(false);
    // They are not connections yet: the connection limits apply once a peer is known.
    expect(server.stats()).toMatchObject({ connections: 0, identifying: 1, refusedConnections: 1 });
    expect(errors).toEqual([
      `refused a connection from unix: 1 connections to unix!${path} are being identified (limits.maxIdentifying)`,
    ]);
    await server.close();
    await eventually(() => first.closed());
  });
});
