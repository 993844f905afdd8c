import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
 *   e. sequential 64-byte reads in 9P2000.L vs the same in 9P2000
 *   f. listing a directory of 1,000 files in 9P2000.L (Treaddir, then each entry's Tgetattr) vs 9P2000
 * Client and server share one process, as do the baselines' two ends.
 */

const dir = mkdtempSync(join(tmpdir(), "ninep-bench-"));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function best(run: () => Promise<number>): Promise<number> {
  let top = 0;
  for (let i = 0; i < ROUNDS; i++) top = Math.max(top, await run());
  return top;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const TREAD_SIZE = 23;
const RREAD_64_SIZE = 11 + 64;

async function smallReads(
  count: number,
  depth: number,
  dialect: Dialect = "9P2000",
): Promise<{ ninep: number; raw: number }> {
  const rawPath = join(dir, `raw-${depth}-${dialect}`);
  const rawServer = await pingPongServer(rawPath, TREAD_SIZE, Buffer.alloc(RREAD_64_SIZE, 1));
  const rawSock = await dialRaw(rawPath);
  const request = Buffer.alloc(TREAD_SIZE, 2);

  const server = new NinepServer(new OneFileFs(Buffer.alloc(64, 3)));
  const path = join(dir, `ninep-${depth}-${dialect}`);
  await server.listen(path);
  const client = await NinepClient.dial(path, { dialect });
  const fsys = await client.attach({ uname: "bench" });
  const file = await fsys.open("data", OREAD);

  const ninepRun = async () => {
    let next = 0;
    const worker = async () => {
      while (next++ < count) await client.read(file.fid, 0n, 64);
    };
    return count / (await timed(() => Promise.all(Array.from({ length: depth }, worker))));
  };
  const rawRun = async () =>
    count / (await timed(() => pingPong(rawSock, request, RREAD_64_SIZE, count, depth)));

  await ninepRun();
  await rawRun();
  const result = { raw: await best(rawRun), ninep: await best(ninepRun) };
  client.close();
  rawSock.destroy();
  await server.close();
  rawServer.close();
  return result;
}

async function bigFile(size: number): Promise<{ ninep: number; raw: number }> {
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
    const seconds = await timed(async () => {
      got = (await fsys.readFile("big")).length;
    });
    if (got !== size) throw new Error(`read ${got} of ${size} bytes`);
    return size / 2 ** 20 / seconds;
  };
  const rawRun = async () => {
    let got = 0;
    const seconds = await timed(async () => {
      got = await drain(await dialRaw(rawPath));
    });
    if (got !== size) throw new Error(`copied ${got} of ${size} bytes`);
    return size / 2 ** 20 / seconds;
  };
  await ninepRun();
  await rawRun();
  const result = { raw: await best(rawRun), ninep: await best(ninepRun) };
  client.close();
  await server.close();
  rawServer.close();
  return result;
}

/** Lists a directory of `files` entries, in each dialect, on one server: entries per second. */
async function listing(files: number): Promise<Record<Dialect, number>> {
  const ramfs = new Ramfs();
  const server = new NinepServer(ramfs);
  const path = join(dir, "listing");
  await server.listen(path);
  const rates = {} as Record<Dialect, number>;
  const setup = await (await NinepClient.dial(path)).attach({ uname: "bench" });
  await setup.mkdir("d");
  for (let i = 0; i < files; i++) await setup.writeFile(`d/f${i}`, "x");
  setup.client.close();
  for (const dialect of ["9P2000", "9P2000.L"] as const) {
    const client = await NinepClient.dial(path, { dialect });
    const fsys = await client.attach({ uname: "bench" });
    const run = async () => {
      let got = 0;
      const seconds = await timed(async () => {
        got = (await fsys.readdir("d")).length;
      });
      if (got !== files) throw new Error(`listed ${got} of ${files} entries`);
      return files / seconds;
    };
    await run();
    rates[dialect] = await best(run);
    client.close();
  }
  await server.close();
  return rates;
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

async function main() {
  console.log(`@ollie/ninep benchmarks (node ${process.version}, best of ${ROUNDS})\n`);
  const a = await smallReads(20_000, 1);
  console.log(
    `a. sequential 64-byte reads: ${fmt(a.ninep)}/s; raw ping-pong ${fmt(a.raw)}/s; ratio ${(a.ninep / a.raw).toFixed(2)}`,
  );
  const summary = process.env.OLLIE_BENCH_SUMMARY;
  if (summary)
    appendFileSync(
      summary,
      `${JSON.stringify({
        order: 6,
        measure:
          "sequential 64-byte 9P reads over a Unix socket (client and server in one process) vs a raw ping-pong of the same sizes",
        ours: `${fmt(a.ninep)}/s`,
        baseline: `${fmt(a.raw)}/s`,
        ratio: `${(a.ninep / a.raw).toFixed(2)}× (throughput)`,
        goal: "no regression (0.69× in the last published run)",
      })}\n`,
    );
  const b = await smallReads(100_000, 16);
  console.log(
    `b. 16 reads in flight:       ${fmt(b.ninep)}/s; raw ping-pong ×16 ${fmt(b.raw)}/s; ratio ${(b.ninep / b.raw).toFixed(2)}`,
  );
  const c = await bigFile(64 * 2 ** 20);
  console.log(
    `c. 64 MiB file, msize 64 KiB: ${fmt(c.ninep)} MiB/s; raw socket copy ${fmt(c.raw)} MiB/s; ratio ${(c.ninep / c.raw).toFixed(2)}`,
  );
  const d = await fidMemory(10_000);
  console.log(
    `d. server heap with ${fmt(d.fids)} fids open: ${fmt(d.bytesPerFid)} bytes per fid (${((d.bytesPerFid * d.fids) / 2 ** 20).toFixed(1)} MiB)`,
  );
  const e = await smallReads(20_000, 1, "9P2000.L");
  console.log(
    `e. sequential 64-byte reads in 9P2000.L: ${fmt(e.ninep)}/s; the same in 9P2000 (a) ${fmt(a.ninep)}/s; ratio ${(e.ninep / a.ninep).toFixed(2)}`,
  );
  const f = await listing(1000);
  console.log(
    `f. listing 1,000 entries in 9P2000.L: ${fmt(f["9P2000.L"])} entries/s; in 9P2000 ${fmt(f["9P2000"])}/s; ratio ${(f["9P2000.L"] / f["9P2000"]).toFixed(2)}`,
  );
  rmSync(dir, { recursive: true, force: true });
}

await main();
