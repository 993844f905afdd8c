import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BlockingFs } from "../__fixtures__/blocking-fs.js";
import { eventually, type Harness, serve } from "../__fixtures__/harness.js";
import type { NinepClient } from "../client/client.js";
import { OREAD, OWRITE } from "../codec/constants.js";
import { decodeMessage } from "../codec/decode.js";
import { encodeMessage } from "../codec/encode.js";
import { FrameReader } from "../codec/frame-reader.js";
import { Ramfs } from "../ramfs/ramfs.js";
import { NinepServer } from "./server.js";

let harness: Harness<unknown> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function openOn(client: NinepClient, path: string, mode = OREAD) {
  const fsys = await client.attach({ uname: "glenda" });
  return fsys.open(path, mode);
}

describe("server engine", () => {
  it("keeps 1,000 requests in flight on one connection and answers them as they finish", async () => {
    const fs = new BlockingFs();
    harness = (await serve(fs)) as Harness<unknown>;
    const client = await harness.client();
    const slow = await openOn(client, "slow");
    const completion: number[] = [];
    const offsets = Array.from({ length: 1000 }, (_, i) => (1000 - i) % 97);
    const replies = await Promise.all(
      offsets.map(async (offset, i) => {
        const data = await slow.read(offset);
        completion.push(i);
        return data.toString();
      }),
    );
    expect(replies).toEqual(offsets.map(String));
    expect(completion).not.toEqual([...completion].sort((a, b) => a - b));
    expect(harness.server.stats().requests).toBe(0);
  });

  it("cancels everything of a client that disconnects mid-flight and keeps serving the others", async () => {
    const fs = new BlockingFs();
    harness = (await serve(fs)) as Harness<unknown>;
    const doomed = await harness.client();
    const survivor = await harness.client();
    const block = await openOn(doomed, "block");
    const pipe = await openOn(doomed, "pipe", OWRITE);
    const pending = [
      ...Array.from({ length: 10 }, () => block.read(0)),
      pipe.write("nobody reads this"),
      ...Array.from({ length: 5 }, (_, i) => block.client.attach({ uname: `u${i}` })),
    ];
    for (const p of pending) p.catch(() => {});
    await eventually(() => fs.blockedReads.size === 10);
    expect(harness.server.stats().fids).toBeGreaterThanOrEqual(9);

    doomed.close();
    await Promise.allSettled(pending);
    await eventually(() => harness!.server.stats().connections === 1);
    expect(fs.blockedReads.size).toBe(0);
    expect(fs.aborted.filter((r) => r === "connection closed")).toHaveLength(10);

    const fsys = await survivor.attach({ uname: "glenda" });
    expect((await fsys.readFile("hello")).toString()).toBe("hello, world\n");
    await eventually(() => harness!.server.stats().fids === 1);
    expect(fs.clunked.filter((p) => p === "/block")).toHaveLength(1);
    expect(fs.clunked.filter((p) => p === "/pipe")).toHaveLength(1);
  });

  it("stops reading requests from a client that does not read its replies", async () => {
    const ramfs = new Ramfs();
    harness = (await serve(ramfs)) as Harness<unknown>;
    const setup = await harness.client();
    const fsys = await setup.attach({ uname: "glenda" });
    await fsys.writeFile("big", Buffer.alloc(60_000, 1));

    const sock: Socket = await new Promise((resolve) => {
      const s = connect(harness!.path, () => resolve(s));
    });
    const replies = new FrameReader(1 << 20);
    let received = 0;
    let fullReads = 0;
    sock.on("data", (chunk: Buffer) => {
      replies.push(chunk);
      for (let frame = replies.next(); frame; frame = replies.next()) {
        received++;
        const m = decodeMessage(frame);
        if (m.type === "Rread" && m.data.length === 60_000) fullReads++;
      }
    });
    const send = (m: Parameters<typeof encodeMessage>[0]) => sock.write(encodeMessage(m));
    send({ type: "Tversion", tag: 0xffff, msize: 65560, version: "9P2000" });
    send({ type: "Tattach", tag: 1, fid: 0, afid: 0xffffffff, uname: "glenda", aname: "" });
    send({ type: "Twalk", tag: 2, fid: 0, newfid: 1, wnames: ["big"] });
    send({ type: "Topen", tag: 3, fid: 1, mode: OREAD });
    await eventually(() => received === 4);
    sock.pause();

    const count = 2000;
    for (let i = 0; i < count; i++) send({ type: "Tread", tag: i, fid: 1, offset: 0n, count: 60_000 });
    // The server has stopped taking requests: its reply queue is past the limit and it answered all it took.
    const limit = harness.server.limits.maxQueuedReplyBytes;
    await eventually(() => {
      const { bufferedOutput, requests } = harness!.server.stats();
      return bufferedOutput > limit && requests === 0;
    }, 10_000);
    const buffered = harness.server.stats().bufferedOutput;
    // 2,000 replies of 60 KB would be 120 MB; the server holds its reply queue's limit and one batch more.
    expect(buffered).toBeLessThan(limit + 4 * 1024 * 1024);

    sock.resume();
    await eventually(() => received === 4 + count, 10_000);
    expect(fullReads).toBe(count);
    sock.destroy();
  });

  it("reports a FileServer clunk that throws, and keeps serving", async () => {
    const fs = new BlockingFs();
    fs.clunk = () => {
      throw new Error("boom");
    };
    const errors: string[] = [];
    harness = (await serve(fs, { onError: (err) => errors.push(err.message) })) as Harness<unknown>;
    const client = await harness.client();
    const fsys = await client.attach({ uname: "glenda" });
    expect((await fsys.readFile("hello")).toString()).toBe("hello, world\n");
    await eventually(() => errors.length === 1);
    expect(errors[0]).toMatch(/^clunk of fid \d+ failed: boom$/);
    expect((await fsys.readFile("hello")).toString()).toBe("hello, world\n");
  });

  it("answers Tclunk with the FileServer's close error, and clunks the fid anyway", async () => {
    const fs = Object.assign(new BlockingFs(), {
      close({ fid }: { fid: { aux: string } }) {
        if (fid.aux === "/hello") throw new Error("hello refused what was written");
      },
    });
    harness = (await serve(fs)) as Harness<unknown>;
    const client = await harness.client();
    const fsys = await client.attach({ uname: "glenda" });
    const hello = await fsys.open("hello");
    await expect(hello.close()).rejects.toThrow("hello refused what was written");
    await expect(fsys.withFile("hello", OREAD, async () => "read")).rejects.toThrow("refused");
    await expect(fsys.withFile("dir", OREAD, async () => "fine")).resolves.toBe("fine");
    await eventually(() => harness!.server.stats().fids === 1);
    expect(fs.clunked.filter((p) => p === "/hello")).toHaveLength(2);
  });

  it("serves TCP as well as Unix sockets", async () => {
    const server = new NinepServer(new BlockingFs());
    const listener = await server.listen("tcp!127.0.0.1!0");
    try {
      const { NinepClient } = await import("../client/client.js");
      const b = listener.boundAddress;
      expect(b.kind).toBe("tcp");
      const client = await NinepClient.dial(b);
      const fsys = await client.attach({ uname: "glenda" });
      expect((await fsys.readFile("/hello")).toString()).toBe("hello, world\n");
      client.close();
    } finally {
      await server.close();
    }
  });

  it("counts a Tflush of a request the server already answered as harmless", async () => {
    harness = (await serve(new BlockingFs())) as Harness<unknown>;
    const sock = await harness.socket();
    const reader = new FrameReader(1 << 20);
    const got: string[] = [];
    sock.on("data", (c: Buffer) => {
      reader.push(c);
      for (let f = reader.next(); f; f = reader.next()) got.push(decodeMessage(f).type);
    });
    sock.write(encodeMessage({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" }));
    sock.write(encodeMessage({ type: "Tattach", tag: 1, fid: 0, afid: 0xffffffff, uname: "u", aname: "" }));
    sock.write(encodeMessage({ type: "Tflush", tag: 2, oldtag: 1 }));
    await eventually(() => got.length === 3);
    expect(got).toEqual(["Rversion", "Rattach", "Rflush"]);
  });
});
