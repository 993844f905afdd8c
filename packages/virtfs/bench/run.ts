import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FileServer, NinepClient, NinepServer, Ramfs } from "@ollie/ninep";
import { interleave, minMedian, msSince } from "../../../bench/interleave.js";
import { AppendBuffer, buildTree, dir, each, file, log, text } from "../src/index.js";
import { RawClient } from "./raw-client.js";

/**
 * Benchmarks of @ollie/virtfs, each against a baseline measured in the same run:
 *   1. listing an `each` directory of 10,000 entries vs listing a ramfs directory of 10,000 files
 *   2. one append waking 1,000 blocked log readers vs answering 1,000 reads of a file that is ready
 *   3. server heap per blocked log reader vs per open fid that is not reading
 * Each figure and its baseline run interleaved over several rounds, the order turning every round; printed
 * are the fastest and the median round.
 */

const dir_ = mkdtempSync(join(tmpdir(), "virtfs-bench-"));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const ENTRIES = 10_000;
const READERS = 1_000;

/** A figure's and its baseline's milliseconds, one a round. */
interface Compared {
  ours: number[];
  base: number[];
}

function heap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with node --expose-gc");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function serve<A>(fs: FileServer<A>, name: string) {
  const server = new NinepServer(fs);
  const path = join(dir_, name);
  await server.listen(path);
  return { server, path };
}

/** Listing the `each` directory (ours) and the ramfs directory (base). */
async function listing(): Promise<Compared> {
  const keys = Array.from({ length: ENTRIES }, (_, i) => `entry-${i}`);
  const tree = buildTree(
    dir("/", [
      each(
        "items",
        () => keys,
        (k) =>
          file(
            k,
            text(() => k),
          ),
      ),
    ]),
  );
  const v = await serve(tree, "each");
  const ramfs = new Ramfs();
  const r = await serve(ramfs, "ramfs");
  const vc = await NinepClient.dial(v.path);
  const rc = await NinepClient.dial(r.path);
  const vfs = await vc.attach({ uname: "bench" });
  const rfs = await rc.attach({ uname: "bench" });
  await rfs.mkdir("items", 0o755);
  for (const k of keys) await (await rfs.create(`items/${k}`, { perm: 0o644 })).close();

  const timeList = async (fsys: typeof vfs) => {
    const start = process.hrtime.bigint();
    const n = (await fsys.readdir("items")).length;
    if (n !== ENTRIES) throw new Error(`listed ${n} entries`);
    return msSince(start);
  };
  const [ours, base] = await interleave([() => timeList(vfs), () => timeList(rfs)], ROUNDS);
  const result = { ours: ours!, base: base! };
  vc.close();
  rc.close();
  await v.server.close();
  await r.server.close();
  return result;
}

/** One append waking the blocked readers (ours) and as many reads of a ready file (base); server heap. */
async function wakeups(): Promise<Compared & { perBlocked: number; perOpen: number }> {
  const stream = new AppendBuffer();
  const tree = buildTree(
    dir("/", [
      file("log", log(stream)),
      file(
        "ready",
        text(() => "ready\n"),
      ),
    ]),
  );
  const { server, path } = await serve(tree, "log");

  const ready = await RawClient.connect(path);
  await ready.openMany("ready", READERS);
  const readyRun = async () => {
    const target = ready.replies + READERS;
    const start = process.hrtime.bigint();
    ready.readAll(READERS);
    await ready.until(target);
    return msSince(start);
  };

  let position = 0n;
  const logClient = await RawClient.connect(path);
  const beforeOpen = heap();
  await logClient.openMany("log", READERS);
  const afterOpen = heap();
  let perBlocked = 0;
  const wakeRun = async () => {
    const target = logClient.replies + READERS;
    logClient.readAll(READERS, position);
    while (stream.waiting < READERS) await new Promise((r) => setImmediate(r));
    if (perBlocked === 0) perBlocked = (heap() - afterOpen) / READERS;
    const start = process.hrtime.bigint();
    stream.append("line\n");
    await logClient.until(target);
    position += 5n;
    return msSince(start);
  };
  const [wake, readyMs] = await interleave([wakeRun, readyRun], ROUNDS);
  ready.close();
  logClient.close();
  await server.close();
  return { ours: wake!, base: readyMs!, perBlocked, perOpen: (afterOpen - beforeOpen) / READERS };
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);
/** "fastest / median" of a figure, and the ratios of the fastest rounds and of the medians. */
function compared(c: Compared): { ours: string; base: string; ratio: string } {
  const [o, b] = [minMedian(c.ours), minMedian(c.base)];
  return {
    ours: `${fmt(o.min)} / ${fmt(o.median)} ms`,
    base: `${fmt(b.min)} / ${fmt(b.median)} ms`,
    ratio: `${fmt(o.min / b.min, 2)} / ${fmt(o.median / b.median, 2)}`,
  };
}

console.log(
  `@ollie/virtfs benchmarks (node ${process.version}); each figure beside its baseline, the two interleaved over ${ROUNDS} rounds: fastest / median round\n`,
);
const l = compared(await listing());
console.log(
  `1. list ${ENTRIES.toLocaleString("en")} entries: each ${l.ours}; ramfs directory ${l.base}; ratio ${l.ratio}`,
);
const w = await wakeups();
const wc = compared(w);
console.log(
  `2. one append to ${READERS.toLocaleString("en")} blocked log readers: ${wc.ours} until all have it; ${READERS.toLocaleString("en")} reads of a ready file: ${wc.base}; ratio ${wc.ratio}`,
);
console.log(
  `3. server heap: ${Math.round(w.perBlocked)} bytes per blocked reader, on top of ${Math.round(w.perOpen)} bytes per open fid (${fmt((READERS * (w.perBlocked + w.perOpen)) / 2 ** 20, 2)} MiB for ${READERS.toLocaleString("en")} readers)`,
);
rmSync(dir_, { recursive: true, force: true });
