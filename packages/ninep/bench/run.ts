import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { interleave, minMedian, msSince } from "../../../bench/interleave.js";
import {
  type Dialect,
  encodeMessage,
  FrameReader,
  NinepClient,
  NinepServer,
  NOFID,
  OREAD,
  Ramfs,
} from "../src/index.js";
import { dialRaw, drain, pingPong, pingPongServer, streamServer } from "./raw-socket.js";
import { OneFileFs } from "./small-file-fs.js";

/**
 * Benchmarks of @ollie/ninep, each against a baseline measured in the same run on the same machine:
 *   a. sequential 64-byte reads vs a raw Unix-socket ping-pong of the same sizes
 *   b. 64-byte reads with 16 in flight vs the raw ping-pong with 16 in flight
 *   c. reading a 64 MiB file at msize 64 KiB vs a raw socket copy of 64 MiB
 *   d. server heap per open fid, with 10,000 fids open
 *   e. sequential 64-byte reads in 9P2000.L vs the same in 9P2000 (two clients of one server)
 *   f. listing a directory of 1,000 files in 9P2000.L (Treaddir, then each entry's Tgetattr) vs 9P2000
 * Client and server share one process, as do the baselines' two ends. Each figure and its baseline run
 * interleaved over several rounds, the order turning every round; printed are the fastest and the median.
 */

const dir = mkdtempSync(join(tmpdir(), "ninep-bench-"));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

/** `count` per second at the fastest and at the median round of `times` (milliseconds). */
function rate(count: number, times: number[]): { fastest: number; median: number } {
  const { min, median } = minMedian(times);
  return { fastest: (count * 1000) / min, median: (count * 1000) / median };
}

/** A figure and its baseline from the same interleaved rounds, as rates. */
interface Compared {
  ours: { fastest: number; median: number };
  base: { fastest: number; median: number };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return msSince(start);
}

const TREAD_SIZE = 23;
const RREAD_64_SIZE = 11 + 64;

/** Reads 64 bytes `count` times, `depth` at a time, over `client`'s open `fid`: milliseconds. */
function reads(client: NinepClient, fid: number, count: number, depth: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next++ < count) await client.read(fid, 0n, 64);
  };
  return timed(() => Promise.all(Array.from({ length: depth }, worker)));
}

async function openData(path: string, dialect: Dialect): Promise<{ client: NinepClient; fid: number }> {
  const client = await NinepClient.dial(path, { dialect });
  const fsys = await client.attach({ uname: "bench" });
  return { client, fid: (await fsys.open("data", OREAD)).fid };
}

async function smallReads(count: number, depth: number): Promise<Compared> {
  const rawPath = join(dir, `raw-${depth}`);
  const rawServer = await pingPongServer(rawPath, TREAD_SIZE, Buffer.alloc(RREAD_64_SIZE, 1));
  const rawSock = await dialRaw(rawPath);
  const request = Buffer.alloc(TREAD_SIZE, 2);

  const server = new NinepServer(new OneFileFs(Buffer.alloc(64, 3)));
  const path = join(dir, `ninep-${depth}`);
  await server.listen(path);
  const { client, fid } = await openData(path, "9P2000");

  const [ours, raw] = await interleave(
    [
      () => reads(client, fid, count, depth),
      () => timed(() => pingPong(rawSock, request, RREAD_64_SIZE, count, depth)),
    ],
    ROUNDS,
  );
  client.close();
  rawSock.destroy();
  await server.close();
  rawServer.close();
  return { ours: rate(count, ours!), base: rate(count, raw!) };
}

/** Sequential 64-byte reads in 9P2000.L (ours) and in 9P2000 (base), two clients of one server. */
async function dialectReads(count: number): Promise<Compared> {
  const server = new NinepServer(new OneFileFs(Buffer.alloc(64, 3)));
  const path = join(dir, "dialects");
  await server.listen(path);
  const linux = await openData(path, "9P2000.L");
  const plain = await openData(path, "9P2000");
  const [l, p] = await interleave(
    [() => reads(linux.client, linux.fid, count, 1), () => reads(plain.client, plain.fid, count, 1)],
    ROUNDS,
  );
  linux.client.close();
  plain.client.close();
  await server.close();
  return { ours: rate(count, l!), base: rate(count, p!) };
}

async function bigFile(size: number): Promise<Compared> {
  const msize = 64 * 1024 + 24;
  const ramfs = new Ramfs();
  const server = new NinepServer(ramfs, { maxMsize: msize });
  const path = join(dir, "big");
  await server.listen(path);
  const client = await NinepClient.dial(path, { msize });
  const fsys = await client.attach({ uname: "bench" });
  const content = Buffer.alloc(size, 5);
  await fsys.writeFile("big", content);

  const rawPath = join(dir, "stream");
  const rawServer = await streamServer(rawPath, size, 64 * 1024);

  const ninepRun = async () => {
    let got = 0;
    const ms = await timed(async () => {
      got = (await fsys.readFile("big")).length;
    });
    if (got !== size) throw new Error(`read ${got} of ${size} bytes`);
    return ms;
  };
  const rawRun = async () => {
    let got = 0;
    const ms = await timed(async () => {
      got = await drain(await dialRaw(rawPath));
    });
    if (got !== size) throw new Error(`copied ${got} of ${size} bytes`);
    return ms;
  };
  const [ours, raw] = await interleave([ninepRun, rawRun], ROUNDS);
  client.close();
  await server.close();
  rawServer.close();
  const mib = size / 2 ** 20;
  return { ours: rate(mib, ours!), base: rate(mib, raw!) };
}

/** Lists a directory of `files` entries in 9P2000.L (ours) and in 9P2000 (base), on one server: entries/s. */
async function listing(files: number): Promise<Compared> {
  const ramfs = new Ramfs();
  const server = new NinepServer(ramfs);
  const path = join(dir, "listing");
  await server.listen(path);
  const setup = await (await NinepClient.dial(path)).attach({ uname: "bench" });
  await setup.mkdir("d");
  for (let i = 0; i < files; i++) await setup.writeFile(`d/f${i}`, "x");
  setup.client.close();
  const runs = [];
  const clients: NinepClient[] = [];
  for (const dialect of ["9P2000.L", "9P2000"] as const) {
    const client = await NinepClient.dial(path, { dialect });
    clients.push(client);
    const fsys = await client.attach({ uname: "bench" });
    runs.push(async () => {
      let got = 0;
      const ms = await timed(async () => {
        got = (await fsys.readdir("d")).length;
      });
      if (got !== files) throw new Error(`listed ${got} of ${files} entries in ${dialect}`);
      return ms;
    });
  }
  const [l, p] = await interleave(runs, ROUNDS);
  for (const client of clients) client.close();
  await server.close();
  return { ours: rate(files, l!), base: rate(files, p!) };
}

function heap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with node --expose-gc");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Opens `count` fids from a raw client (which keeps no state of its own) and measures the server's heap. */
async function fidMemory(count: number): Promise<{ bytesPerFid: number; fids: number }> {
  const server = new NinepServer(new OneFileFs(Buffer.alloc(64)));
  const path = join(dir, "fids");
  await server.listen(path);
  const sock = await dialRaw(path);
  const reader = new FrameReader(1 << 20);
  let replies = 0;
  sock.on("data", (chunk: Buffer) => {
    reader.push(chunk);
    while (reader.next()) replies++;
  });
  const exchange = async (frames: Buffer[]) => {
    const target = replies + frames.length;
    for (const f of frames) sock.write(f);
    while (replies < target) await new Promise((r) => setTimeout(r, 1));
  };
  await exchange([encodeMessage({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" })]);
  await exchange([
    encodeMessage({ type: "Tattach", tag: 0, fid: 0, afid: NOFID, uname: "bench", aname: "" }),
  ]);
  const before = heap();
  for (let i = 1; i <= count; i++) {
    await exchange([
      encodeMessage({ type: "Twalk", tag: 1, fid: 0, newfid: i, wnames: ["data"] }),
      encodeMessage({ type: "Topen", tag: 2, fid: i, mode: OREAD }),
    ]);
  }
  const after = heap();
  const fids = server.stats().fids;
  sock.destroy();
  await server.close();
  return { bytesPerFid: (after - before) / count, fids };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en");
/** "fastest / median" of a rate. */
const pair = (r: { fastest: number; median: number }) => `${fmt(r.fastest)} / ${fmt(r.median)}`;
/** The ratios of the fastest rounds and of the medians. */
const ratios = (c: Compared) =>
  `${(c.ours.fastest / c.base.fastest).toFixed(2)} / ${(c.ours.median / c.base.median).toFixed(2)}`;

async function main() {
  console.log(
    `@ollie/ninep benchmarks (node ${process.version}); each figure beside its baseline, the two interleaved over ${ROUNDS} rounds: fastest / median round\n`,
  );
  const a = await smallReads(20_000, 1);
  console.log(
    `a. sequential 64-byte reads: ${pair(a.ours)} /s; raw ping-pong ${pair(a.base)} /s; ratio ${ratios(a)}`,
  );
  const summary = process.env.OLLIE_BENCH_SUMMARY;
  if (summary)
    appendFileSync(
      summary,
      `${JSON.stringify({
        order: 6,
        measure: `sequential 64-byte 9P reads over a Unix socket (client and server in one process) vs a raw ping-pong of the same sizes, medians of ${ROUNDS} interleaved rounds`,
        ours: `${fmt(a.ours.median)}/s`,
        baseline: `${fmt(a.base.median)}/s`,
        ratio: `${(a.ours.median / a.base.median).toFixed(2)}× (throughput)`,
        goal: "no regression (0.55× in the last published run)",
      })}\n`,
    );
  const b = await smallReads(100_000, 16);
  console.log(
    `b. 16 reads in flight:       ${pair(b.ours)} /s; raw ping-pong ×16 ${pair(b.base)} /s; ratio ${ratios(b)}`,
  );
  const c = await bigFile(64 * 2 ** 20);
  console.log(
    `c. 64 MiB file, msize 64 KiB: ${pair(c.ours)} MiB/s; raw socket copy ${pair(c.base)} MiB/s; ratio ${ratios(c)}`,
  );
  const d = await fidMemory(10_000);
  console.log(
    `d. server heap with ${fmt(d.fids)} fids open: ${fmt(d.bytesPerFid)} bytes per fid (${((d.bytesPerFid * d.fids) / 2 ** 20).toFixed(1)} MiB)`,
  );
  const e = await dialectReads(20_000);
  console.log(
    `e. sequential 64-byte reads in 9P2000.L: ${pair(e.ours)} /s; the same in 9P2000 ${pair(e.base)} /s; ratio ${ratios(e)}`,
  );
  const f = await listing(1000);
  console.log(
    `f. listing 1,000 entries in 9P2000.L: ${pair(f.ours)} entries/s; in 9P2000 ${pair(f.base)} /s; ratio ${ratios(f)}`,
  );
  rmSync(dir, { recursive: true, force: true });
}

await main();
