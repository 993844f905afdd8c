import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FileServer, NinepClient, NinepServer, Ramfs } from "@ollie/ninep";
import { buildTree, dir, each, file, LogStream, log, text } from "../src/index.js";
import { RawClient } from "./raw-client.js";

/**
 * Benchmarks of @ollie/virtfs, each against a baseline measured in the same run:
 *   1. listing an `each` directory of 10,000 entries vs listing a ramfs directory of 10,000 files
 *   2. one append waking 1,000 blocked log readers vs answering 1,000 reads of a file that is ready
 *   3. server heap per blocked log reader vs per open fid that is not reading
 */

const dir_ = mkdtempSync(join(tmpdir(), "virtfs-bench-"));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ENTRIES = 10_000;
const READERS = 1_000;

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

async function bestMs(run: () => Promise<number>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ROUNDS; i++) best = Math.min(best, await run());
  return best;
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

async function listing(): Promise<{ each: number; ramfs: number }> {
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
    return ms(start);
  };
  await timeList(vfs);
  await timeList(rfs);
  const result = { each: await bestMs(() => timeList(vfs)), ramfs: await bestMs(() => timeList(rfs)) };
  vc.close();
  rc.close();
  await v.server.close();
  await r.server.close();
  return result;
}

async function wakeups(): Promise<{ wake: number; ready: number; perBlocked: number; perOpen: number }> {
  const stream = new LogStream();
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
    return ms(start);
  };
  await readyRun();
  const readyMs = await bestMs(readyRun);
  ready.close();

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
    return ms(start);
  };
  await wakeRun();
  const wakeMs = await bestMs(wakeRun);
  logClient.close();
  await server.close();
  return { wake: wakeMs, ready: readyMs, perBlocked, perOpen: (afterOpen - beforeOpen) / READERS };
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

console.log(`@ollie/virtfs benchmarks (node ${process.version}, best of ${ROUNDS})\n`);
const l = await listing();
console.log(
  `1. list ${ENTRIES.toLocaleString("en")} entries: each ${fmt(l.each)} ms; ramfs directory ${fmt(l.ramfs)} ms; ratio ${fmt(l.each / l.ramfs, 2)}`,
);
const w = await wakeups();
console.log(
  `2. one append to ${READERS.toLocaleString("en")} blocked log readers: ${fmt(w.wake)} ms until all have it; ${READERS.toLocaleString("en")} reads of a ready file: ${fmt(w.ready)} ms; ratio ${fmt(w.wake / w.ready, 2)}`,
);
console.log(
  `3. server heap: ${Math.round(w.perBlocked)} bytes per blocked reader, on top of ${Math.round(w.perOpen)} bytes per open fid (${fmt((READERS * (w.perBlocked + w.perOpen)) / 2 ** 20, 2)} MiB for ${READERS.toLocaleString("en")} readers)`,
);
rmSync(dir_, { recursive: true, force: true });
