// `pnpm --filter olliesrv bench:blocked-reads`: what the daemon holds for reads that block. CONNS
// connections (default 100) each pipeline READS reads (default 500) of one agent's `statewait`, which block
// until the agent's state changes; the daemon's RSS and collected heap are taken before the reads, once every
// read is in flight, and after the connections close.
import { userInfo } from "node:os";
import { hmacAuthenticator, NinepClient, OREAD } from "@ollie/ninep";
import { startOllie } from "./harness.js";

const CONNS = Number(process.env.CONNS ?? 100);
const READS = Number(process.env.READS ?? 500);
const MiB = 2 ** 20;

const o = await startOllie("olliesrv-bench-reads-", { nodeArgs: ["--expose-gc"] });
/** The daemon's `stats` this bench reads. */
interface Stats {
  requests: number;
  rss: number;
  heapUsed: number;
}
const stats = async (): Promise<Stats> => {
  const lines = new Map(
    (await o.read("stats"))
      .trim()
      .split("\n")
      .map((line) => line.split(" ") as [string, string]),
  );
  const value = (name: string) => Number(lines.get(name));
  return { requests: value("requests"), rss: value("rss"), heapUsed: value("heap-used") };
};

try {
  const id = await o.create(`cwd=${o.work}`);
  const statewait = `session/${id}/agent/main/statewait`;
  const clients: NinepClient[] = [];
  const files = [];
  for (let i = 0; i < CONNS; i++) {
    const client = await NinepClient.dial(o.address);
    clients.push(client);
    const fsys = await client.attach({
      uname: userInfo().username,
      authenticator: hmacAuthenticator(o.ownerKey()),
    });
    files.push(await fsys.open(statewait, OREAD));
  }
  const before = await stats();
  for (const f of files) {
    for (let r = 0; r < READS; r++) f.read(0, 4096).catch(() => {});
  }
  let during = await stats();
  while (during.requests < before.requests + CONNS * READS) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    during = await stats();
  }
  for (const client of clients) client.close();
  let after = await stats();
  while (after.requests > before.requests) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    after = await stats();
  }
  const reads = CONNS * READS;
  const rss = (during.rss - before.rss) / MiB;
  const heap = (during.heapUsed - before.heapUsed) / MiB;
  console.log(`${CONNS} connections × ${READS} blocked statewait reads (node ${process.version})`);
  console.log(
    `  RSS:  ${(before.rss / MiB).toFixed(1)} → ${(during.rss / MiB).toFixed(1)} MiB (+${rss.toFixed(1)})`,
  );
  console.log(`  heap: +${heap.toFixed(1)} MiB, ${((heap * MiB) / reads).toFixed(0)} bytes a read`);
  console.log(
    `  after closing: RSS ${(after.rss / MiB).toFixed(1)} MiB, heap ${((after.heapUsed - before.heapUsed) / MiB).toFixed(1)} MiB above the start, ${after.requests} requests`,
  );
} finally {
  await o.stop();
  await o.remove();
}
