import type { Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { BlockingFs } from "../__fixtures__/blocking-fs.js";
import { eventually, type Harness, serve } from "../__fixtures__/harness.js";
import { hmacAuth, hmacAuthenticator } from "../auth/hmac.js";
import { OREAD, OWRITE } from "../codec/constants.js";
import { decodeMessage } from "../codec/decode.js";
import { encodeMessage } from "../codec/encode.js";
import { FrameReader } from "../codec/frame-reader.js";
import type { Message, TMessage } from "../codec/types.js";
import { Ramfs } from "../ramfs/ramfs.js";
import type { ServerOptions } from "./server.js";

let harness: Harness<unknown> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A raw client: sends frames, collects the replies it has read, and knows when the server hung up. */
async function raw(h: Harness<unknown>) {
  const sock: Socket = await h.socket();
  const reader = new FrameReader(1 << 24);
  const replies: Message[] = [];
  let closed = false;
  const read = () =>
    sock.on("data", (chunk: Buffer) => {
      reader.push(chunk);
      for (let f = reader.next(); f; f = reader.next()) replies.push(decodeMessage(f));
    });
  sock.on("close", () => {
    closed = true;
  });
  sock.on("error", () => {});
  return {
    sock,
    replies,
    read,
    closed: () => closed,
    send: (m: TMessage) => sock.write(encodeMessage(m)),
    /** The reply to `tag` (Rversion for 0xffff), once it came. */
    async reply(tag: number) {
      await eventually(() => replies.some((r) => "tag" in r && r.tag === tag));
      return replies.find((r) => "tag" in r && r.tag === tag)!;
    },
  };
}

async function served(options: ServerOptions = {}) {
  const fs = new Ramfs();
  harness = (await serve(fs, options)) as Harness<unknown>;
  return harness;
}

describe("a pipelining client", () => {
  /**
   * 4,000 reads whose replies (16 MB) go far past a socket buffer, then 1,000 walks of 2 KB each whose requests
   * (2 MB) do too: a server that stops reading while its replies wait would leave the client blocked writing.
   */
  async function pipeline(options: ServerOptions) {
    const h = await served(options);
    const setup = await (await h.client()).attach({ uname: "glenda" });
    await setup.writeFile("page", Buffer.alloc(4096, 7));
    const c = await raw(h);
    c.read();
    c.send({ type: "Tversion", tag: 0xffff, msize: 8192 + 24, version: "9P2000" });
    c.send({ type: "Tattach", tag: 1, fid: 0, afid: 0xffffffff, uname: "glenda", aname: "" });
    c.send({ type: "Twalk", tag: 2, fid: 0, newfid: 1, wnames: ["page"] });
    c.send({ type: "Topen", tag: 3, fid: 1, mode: OREAD });
    await c.reply(3);
    c.sock.removeAllListeners("data");
    c.sock.pause();
    c.replies.length = 0;
    const reads = 4000;
    const walks = 1000;
    for (let i = 0; i < reads; i++) c.send({ type: "Tread", tag: 10 + i, fid: 1, offset: 0n, count: 4096 });
    const long = Array.from({ length: 8 }, (_, i) => `${i}`.repeat(250));
    for (let i = 0; i < walks; i++) c.send({ type: "Twalk", tag: 5000 + i, fid: 0, newfid: 2, wnames: long });
    /** Resolves when the client's requests have all left it. */
    const drained = new Promise<void>((resolve) => c.sock.once("drain", () => resolve()));
    return { c, drained, total: reads + walks };
  }

  it("gets every reply when it writes 5,000 requests before it reads any reply", async () => {
    const { c, drained, total } = await pipeline({});
    // The client's requests all leave it before it reads a reply; were the server to stop reading, this
    // would wait past the test's timeout.
    await drained;
    c.read();
    c.sock.resume();
    await eventually(() => c.replies.length === total, 20_000);
    expect(c.replies.filter((r) => r.type === "Rread" && r.data.length === 4096)).toHaveLength(4000);
  });

  it("(with a reply queue the size of a socket buffer, the same client would wait forever)", async () => {
    const { drained } = await pipeline({ limits: { maxQueuedReplyBytes: 16 * 1024 } });
    // A window for a negative assertion: the requests must not all leave the client.
    const sent = await Promise.race([drained.then(() => true), sleep(5000).then(() => false)]);
    expect(sent).toBe(false);
  });
});

describe("reads that block", () => {
  it("count with the requests in flight: past maxRequestsInFlight nothing more is read until one is answered", async () => {
    const fs = new BlockingFs();
    const h = (await serve(fs, { limits: { maxRequestsInFlight: 4 } })) as Harness<unknown>;
    harness = h;
    const c = await raw(h);
    c.read();
    c.send({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" });
    c.send({ type: "Tattach", tag: 1, fid: 0, afid: 0xffffffff, uname: "glenda", aname: "" });
    c.send({ type: "Twalk", tag: 2, fid: 0, newfid: 1, wnames: ["pipe"] });
    c.send({ type: "Topen", tag: 3, fid: 1, mode: OREAD });
    c.send({ type: "Twalk", tag: 4, fid: 0, newfid: 2, wnames: ["hello"] });
    c.send({ type: "Topen", tag: 5, fid: 2, mode: OREAD });
    await c.reply(5);
    // Four reads that wait for a write fill the connection; the quick read behind them is not taken.
    for (let i = 0; i < 4; i++) c.send({ type: "Tread", tag: 10 + i, fid: 1, offset: 0n, count: 64 });
    c.send({ type: "Tread", tag: 20, fid: 2, offset: 0n, count: 64 });
    await eventually(() => fs.waitingPipeReads === 4);
    expect(h.server.stats().requests).toBe(4);
    // One write answers one of them, and only then is the quick read read, and answered after it.
    const writer = await (await h.client()).attach({ uname: "glenda" });
    await (await writer.open("pipe", OWRITE)).write("woken");
    expect(await c.reply(20)).toMatchObject({ type: "Rread", data: Buffer.from("hello, world\n") });
    const order = c.replies.map((r) => ("tag" in r ? r.tag : -1));
    expect(order.indexOf(10)).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(10)).toBeLessThan(order.indexOf(20));
    expect(fs.waitingPipeReads).toBe(3);
  });

  it("are aborted, and hold nothing, once their connection closes", async () => {
    const fs = new BlockingFs();
    const h = (await serve(fs)) as Harness<unknown>;
    harness = h;
    const c = await raw(h);
    c.read();
    c.send({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" });
    c.send({ type: "Tattach", tag: 1, fid: 0, afid: 0xffffffff, uname: "glenda", aname: "" });
    c.send({ type: "Twalk", tag: 2, fid: 0, newfid: 1, wnames: ["block"] });
    c.send({ type: "Topen", tag: 3, fid: 1, mode: OREAD });
    await c.reply(3);
    for (let i = 0; i < 500; i++) c.send({ type: "Tread", tag: 10 + i, fid: 1, offset: 0n, count: 64 });
    await eventually(() => fs.blockedReads.size === 500);
    c.sock.destroy();
    await eventually(() => fs.blockedReads.size === 0 && h.server.stats().connections === 0);
    expect(h.server.stats()).toMatchObject({ requests: 0, fids: 0 });
    expect(fs.aborted).toHaveLength(500);
  });
});

describe("limits", () => {
  it("closes a connection past maxConnections at once, and counts it", async () => {
    const errors: string[] = [];
    const h = await served({ limits: { maxConnections: 2 }, onError: (e) => errors.push(e.message) });
    const [a, b, c] = [await raw(h), await raw(h), await raw(h)];
    await eventually(() => c.closed());
    expect(a.closed() || b.closed()).toBe(false);
    expect(h.server.stats()).toMatchObject({ connections: 2, refusedConnections: 1 });
    expect(errors).toEqual([
      "refused a connection from unix: 2 connections are open (limits.maxConnections)",
    ]);
  });

  it("closes a connection that has not attached by the deadline, and keeps one that has", async () => {
    const errors: string[] = [];
    const h = await served({ limits: { attachDeadlineMs: 300 }, onError: (e) => errors.push(e.message) });
    const idle = await raw(h);
    idle.read();
    idle.send({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" });
    const attached = await h.client();
    await attached.attach({ uname: "glenda" });
    await eventually(() => idle.closed(), 3000);
    // A window for a negative assertion: the attached connection's deadline, just after idle's, must not close it.
    await sleep(200);
    expect((await attached.attach({ uname: "glenda" })).stat).toBeDefined();
    expect(errors).toEqual([expect.stringMatching(/^unix: no attach within 0.3 s; connection closed$/)]);
  });

  it("refuses a message larger than maxMessageBeforeAttach before the first attach, not after", async () => {
    const h = await served({ limits: { maxMessageBeforeAttach: 8192 } });
    const early = await raw(h);
    early.read();
    early.send({ type: "Tversion", tag: 0xffff, msize: 65536, version: "9P2000" });
    await early.reply(0xffff);
    // A header that announces a 1 MiB message: refused as soon as its size is read.
    const header = Buffer.alloc(7);
    header.writeUInt32LE(1 << 20, 0);
    early.sock.write(header);
    await eventually(() => early.closed());
    const late = await (await h.client(65536)).attach({ uname: "glenda" });
    await late.writeFile("big", Buffer.alloc(60_000, 1));
    expect((await late.readFile("big")).length).toBe(60_000);
  });

  it("refuses a uname or aname longer than maxNameBytes", async () => {
    const h = await served({ limits: { maxNameBytes: 16 } });
    const client = await h.client();
    await expect(client.attach({ uname: "x".repeat(17) })).rejects.toThrow("uname is longer than 16 bytes");
    await expect(client.attach({ uname: "glenda", aname: "y".repeat(17) })).rejects.toThrow(
      "aname is longer than 16 bytes",
    );
    await expect(client.attach({ uname: "x".repeat(16) })).resolves.toBeDefined();
  });

  it("holds at most maxAuthFids authentication fids per connection", async () => {
    const key = "k".repeat(32);
    const h = await served({
      auth: hmacAuth({ keyFor: () => Buffer.from(key) }),
      limits: { maxAuthFids: 2 },
    });
    const c = await raw(h);
    c.read();
    c.send({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" });
    for (let i = 0; i < 3; i++)
      c.send({ type: "Tauth", tag: 1 + i, afid: 100 + i, uname: "glenda", aname: "" });
    expect((await c.reply(1)).type).toBe("Rauth");
    expect((await c.reply(2)).type).toBe("Rauth");
    expect(await c.reply(3)).toMatchObject({
      type: "Rerror",
      ename: "too many authentication fids (at most 2); clunk one first",
    });
    c.send({ type: "Tclunk", tag: 4, fid: 100 });
    await c.reply(4);
    c.send({ type: "Tauth", tag: 5, afid: 103, uname: "glenda", aname: "" });
    expect((await c.reply(5)).type).toBe("Rauth");
    // The limit does not stand in the way of a proper proof.
    const proven = await (await h.client()).attach({
      uname: "glenda",
      authenticator: hmacAuthenticator(key),
    });
    expect(proven).toBeDefined();
  });
});
