// A complete FileServer: a directory with a read-only `hello` and a `count` that counts the writes to it.
// Run: node --import tsx examples/hello-fs.ts   (then, e.g.: ninep -a unix!/tmp/hello.sock read hello)

import type { FileServer, Qid, Stat } from "@ollie/ninep";
import { DM, Errno, NinepClient, NinepError, NinepServer, OWRITE, QT } from "@ollie/ninep";

type Node = "/" | "hello" | "count";
const qids: Record<Node, Qid> = {
  "/": { type: QT.DIR, version: 0, path: 0n },
  hello: { type: QT.FILE, version: 0, path: 1n },
  count: { type: QT.FILE, version: 0, path: 2n },
};
let writes = 0;

const content = (n: Node) => Buffer.from(n === "hello" ? "hello, world\n" : `${writes}\n`);
const stat = (n: Node): Stat => ({
  type: 0,
  dev: 0,
  qid: qids[n],
  atime: 0,
  mtime: 0,
  length: 0n,
  uid: "demo",
  gid: "demo",
  muid: "demo",
  name: n,
  mode: n === "/" ? (DM.DIR | 0o555) >>> 0 : n === "count" ? 0o666 : 0o444,
});

const helloFs: FileServer<Node> = {
  attach({ fid }) {
    fid.aux = "/";
    return qids["/"];
  },
  walk({ fid, newFid, names }) {
    if (names.length === 0) return [];
    const name = names[0] as Node;
    if (fid.aux !== "/" || names.length > 1 || !(name in qids) || name === "/")
      throw new NinepError("file not found", { errno: Errno.ENOENT });
    newFid.aux = name;
    return [qids[name]];
  },
  open({ fid, mode }) {
    if (fid.aux === "hello" && (mode & 3) !== 0)
      throw new NinepError("permission denied", { errno: Errno.EACCES });
    return undefined;
  },
  read: ({ fid, offset, count }) => content(fid.aux).subarray(Number(offset), Number(offset) + count),
  readdir: () => [stat("hello"), stat("count")],
  write({ data }) {
    writes += 1;
    return data.length;
  },
  stat: ({ fid }) => stat(fid.aux),
};

const server = new NinepServer(helloFs);
await server.listen("unix!/tmp/hello.sock");

const client = await NinepClient.dial("unix!/tmp/hello.sock");
const fsys = await client.attach({ uname: "glenda" });
console.log((await fsys.readdir("/")).map((s) => s.name).join(" "));
console.log((await fsys.readFile("hello")).toString().trim());
await fsys.withFile("count", OWRITE, (f) => f.write("one more"));
console.log(`count: ${(await fsys.readFile("count")).toString().trim()}`);

client.close();
await server.close();
