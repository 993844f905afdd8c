import { connect, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { BlockingFs } from "../__fixtures__/blocking-fs.js";
import { eventually, type Harness, serve } from "../__fixtures__/harness.js";
import { encodeMessage } from "../codec/encode.js";
import { dontTouchStat } from "../codec/stat.js";
import type { Message } from "../codec/types.js";

const FRAMES = Number(process.env.NINEP_FUZZ_FRAMES ?? 100_000);

/** A small deterministic generator, so a failure can be replayed from its seed. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const plainCorpus: Message[] = [
  { type: "Tattach", tag: 1, fid: 0, afid: 0xffffffff, uname: "fuzz", aname: "" },
  { type: "Tauth", tag: 2, afid: 9, uname: "fuzz", aname: "" },
  { type: "Twalk", tag: 3, fid: 0, newfid: 1, wnames: ["hello"] },
  { type: "Twalk", tag: 4, fid: 0, newfid: 2, wnames: ["dir", "a"] },
  { type: "Twalk", tag: 4, fid: 0, newfid: 3, wnames: ["block"] },
  { type: "Twalk", tag: 4, fid: 0, newfid: 0, wnames: [] },
  { type: "Topen", tag: 5, fid: 1, mode: 0 },
  { type: "Topen", tag: 5, fid: 3, mode: 0 },
  { type: "Tcreate", tag: 6, fid: 0, name: "new", perm: 0o644, mode: 2 },
  { type: "Tread", tag: 7, fid: 1, offset: 0n, count: 100 },
  { type: "Tread", tag: 7, fid: 3, offset: 0n, count: 100 },
  { type: "Twrite", tag: 8, fid: 1, offset: 0n, data: Buffer.from("data") },
  { type: "Tclunk", tag: 9, fid: 1 },
  { type: "Tremove", tag: 10, fid: 2 },
  { type: "Tstat", tag: 11, fid: 0 },
  { type: "Twstat", tag: 12, fid: 1, stat: { ...dontTouchStat(), name: "x" } },
  { type: "Tflush", tag: 13, oldtag: 7 },
  { type: "Tversion", tag: 0xffff, msize: 4096, version: "9P2000" },
];

/** The same session's work as the kernel and diod's clients send it in 9P2000.L, and every message it adds. */
const linuxCorpus: Message[] = [
  { type: "Tattach", tag: 1, fid: 0, afid: 0xffffffff, uname: "", aname: "", nUname: 1000 },
  { type: "Tauth", tag: 2, afid: 9, uname: "", aname: "", nUname: 1000 },
  { type: "Twalk", tag: 3, fid: 0, newfid: 1, wnames: ["hello"] },
  { type: "Twalk", tag: 4, fid: 0, newfid: 2, wnames: ["dir"] },
  { type: "Twalk", tag: 4, fid: 0, newfid: 3, wnames: ["block"] },
  { type: "Tlopen", tag: 5, fid: 1, flags: 0 },
  { type: "Tlopen", tag: 5, fid: 2, flags: 0o304000 },
  { type: "Tlopen", tag: 5, fid: 3, flags: 0 },
  { type: "Tlcreate", tag: 6, fid: 0, name: "new", flags: 0o102, mode: 0o100644, gid: 0 },
  { type: "Tgetattr", tag: 7, fid: 1, requestMask: 0x3fffn },
  {
    type: "Tsetattr",
    tag: 7,
    fid: 1,
    valid: 0x68,
    mode: 0,
    uid: 0,
    gid: 0,
    size: 0n,
    atimeSec: 0n,
    atimeNsec: 0n,
    mtimeSec: 0n,
    mtimeNsec: 0n,
  },
  { type: "Treaddir", tag: 7, fid: 2, offset: 0n, count: 100 },
  { type: "Tread", tag: 7, fid: 3, offset: 0n, count: 100 },
  { type: "Twrite", tag: 8, fid: 1, offset: 0n, data: Buffer.from("data") },
  { type: "Tmkdir", tag: 8, dfid: 0, name: "made", mode: 0o755, gid: 0 },
  { type: "Tunlinkat", tag: 8, dirfid: 0, name: "made", flags: 0x200 },
  { type: "Trenameat", tag: 8, olddirfid: 0, oldname: "hello", newdirfid: 0, newname: "hi" },
  { type: "Trename", tag: 8, fid: 1, dfid: 0, name: "hi" },
  { type: "Tstatfs", tag: 9, fid: 0 },
  { type: "Tfsync", tag: 9, fid: 1, datasync: 0 },
  { type: "Tlock", tag: 9, fid: 1, lockType: 1, flags: 0, start: 0n, length: 0n, procId: 1, clientId: "x" },
  { type: "Tgetlock", tag: 9, fid: 1, lockType: 1, start: 0n, length: 0n, procId: 1, clientId: "x" },
  { type: "Txattrwalk", tag: 10, fid: 1, newfid: 4, name: "" },
  { type: "Txattrwalk", tag: 10, fid: 1, newfid: 5, name: "security.capability" },
  { type: "Txattrcreate", tag: 10, fid: 1, name: "user.x", attrSize: 1n, flags: 0 },
  { type: "Tsymlink", tag: 11, fid: 0, name: "l", symtgt: "hello", gid: 0 },
  { type: "Tmknod", tag: 11, dfid: 0, name: "n", mode: 0o20644, major: 1, minor: 3, gid: 0 },
  { type: "Tlink", tag: 11, dfid: 0, fid: 1, name: "h" },
  { type: "Treadlink", tag: 11, fid: 1 },
  { type: "Tclunk", tag: 12, fid: 1 },
  { type: "Tflush", tag: 13, oldtag: 7 },
  { type: "Tversion", tag: 0xffff, msize: 4096, version: "9P2000.L" },
];

const DIALECTS = {
  "9P2000": { corpus: plainCorpus.map(encodeMessage) },
  "9P2000.L": { corpus: linuxCorpus.map(encodeMessage) },
};
type Dialect = keyof typeof DIALECTS;

/**
 * One frame: a valid message, a mutation of one, or noise. `fatal` marks a size field no server can accept,
 * after which the connection is expected to end.
 */
function nextFrame(rand: () => number, corpus: Buffer[]): { bytes: Buffer; fatal: boolean } {
  const bytes = mutate(rand, corpus);
  const size = bytes.readUInt32LE(0);
  return { bytes, fatal: size < 7 || size > 8192 };
}

function mutate(rand: () => number, corpus: Buffer[]): Buffer {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const base = Buffer.from(pick(corpus));
  const kind = rand();
  if (kind < 0.2) return base;
  if (kind < 0.45) {
    for (let n = 1 + Math.floor(rand() * 4); n > 0; n--) {
      const at = 4 + Math.floor(rand() * (base.length - 4));
      base[at] = base[at]! ^ (1 << Math.floor(rand() * 8));
    }
    return base;
  }
  if (kind < 0.6) {
    const cut = Buffer.from(base.subarray(0, 7 + Math.floor(rand() * (base.length - 7))));
    cut.writeUInt32LE(cut.length, 0);
    return cut;
  }
  if (kind < 0.7) {
    base[4] = Math.floor(rand() * 256);
    return base;
  }
  if (kind < 0.85) {
    const noise = Buffer.alloc(7 + Math.floor(rand() * 60));
    for (let i = 4; i < noise.length; i++) noise[i] = Math.floor(rand() * 256);
    noise.writeUInt32LE(noise.length, 0);
    return noise;
  }
  if (kind < 0.93) {
    // a count or string length field pointing far past the end
    const long = Buffer.from(base);
    if (long.length >= 9) long.writeUInt16LE(0xffff, long.length - 2 >= 7 ? 7 : 5);
    return long;
  }
  // a size field that cannot be a frame: too small, or beyond msize
  const bad = Buffer.from(base);
  bad.writeUInt32LE(rand() < 0.5 ? Math.floor(rand() * 7) : 8193 + Math.floor(rand() * 1e9), 0);
  return bad;
}

let harness: Harness<unknown> | undefined;
afterAll(async () => harness?.close());

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe("fuzzing a live server", () => {
  it.each(Object.keys(DIALECTS) as Dialect[])(
    `survives ${FRAMES.toLocaleString("en")} random and mutated %s frames while serving a well-behaved client`,
    async (dialect) => {
      const corpus = DIALECTS[dialect].corpus;
      const version = encodeMessage({ type: "Tversion", tag: 0xffff, msize: 8192, version: dialect });
      await harness?.close();
      const fs = new BlockingFs();
      harness = (await serve(fs)) as Harness<unknown>;
      const good = await (await harness.client()).attach({ uname: "good" });
      const hello = async () => expect((await good.readFile("hello")).toString()).toBe("hello, world\n");
      await hello();

      const rand = prng(20261130);
      const openConnection = async (): Promise<Socket> => {
        const s: Socket = await new Promise((resolve, reject) => {
          const c = connect(harness!.path, () => resolve(c));
          c.once("error", reject);
        });
        s.on("data", (chunk: Buffer) => {
          replyBytes += chunk.length;
        });
        s.on("error", () => {});
        return s;
      };

      const baseline = heapAfterGc();
      let replyBytes = 0;
      let sent = 0;
      let connections = 0;
      let goodReads = 0;
      let goodFailures = 0;
      let fuzzing = true;
      const goodLoop = (async () => {
        while (fuzzing) {
          try {
            await hello();
            goodReads++;
          } catch {
            goodFailures++;
          }
        }
      })();

      while (sent < FRAMES) {
        const sock = await openConnection();
        connections++;
        if (rand() < 0.9) sock.write(version);
        const burst = 50 + Math.floor(rand() * 400);
        for (let i = 0; i < burst && sent < FRAMES; i++) {
          const frame = nextFrame(rand, corpus);
          sock.write(frame.bytes);
          sent++;
          if (frame.fatal) break;
        }
        // The server answers everything it received, then ends the connection.
        await new Promise<void>((resolve) => {
          sock.once("close", () => resolve());
          sock.end();
        });
      }
      fuzzing = false;
      await goodLoop;

      await eventually(() => harness!.server.stats().connections === 1, 10_000);
      await hello();
      await eventually(() => harness!.server.stats().fids === 1);
      expect(goodFailures).toBe(0);
      expect(goodReads).toBeGreaterThan(0);
      // Most frames are well delimited and each earns a reply of at least a header.
      expect(replyBytes).toBeGreaterThan(sent * 7 * 0.5);
      expect(harness.server.stats()).toMatchObject({ connections: 1, fids: 1, requests: 0 });
      expect(fs.blockedReads.size).toBe(0);

      fs.aborted.length = 0;
      fs.clunked.length = 0;
      const after = heapAfterGc();
      const grown = after - baseline;
      console.log(
        `fuzz (${dialect}): ${sent} frames on ${connections} connections, ${(replyBytes / 2 ** 20).toFixed(1)} MiB of replies; good client read ${goodReads} times; heap ${(baseline / 2 ** 20).toFixed(1)} MiB -> ${(after / 2 ** 20).toFixed(1)} MiB`,
      );
      expect(grown).toBeLessThan(8 * 2 ** 20);
    },
    120_000,
  );
});
