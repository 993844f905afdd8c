import type { Fid, FileServer, Qid, ReadRequest, Stat } from "../src/index.js";
import { QT } from "../src/index.js";

const ROOT: Qid = { type: QT.DIR, version: 0, path: 0n };
const FILE: Qid = { type: 0, version: 0, path: 1n };

/** A server of one file, `data`, whose content is a fixed buffer: the cheapest possible FileServer. */
export class OneFileFs implements FileServer<boolean> {
  constructor(private readonly content: Buffer) {}
  attach({ fid }: { fid: Fid<boolean> }): Qid {
    fid.aux = false;
    return ROOT;
  }
  walk({ newFid, names }: { newFid: Fid<boolean>; names: string[] }): Qid[] {
    if (names.length === 0) return [];
    if (names[0] !== "data") throw new Error("file not found");
    newFid.aux = true;
    return [FILE];
  }
  open(): undefined {
    return undefined;
  }
  read({ offset, count }: ReadRequest<boolean>): Uint8Array {
    const start = Number(offset);
    return this.content.subarray(start, start + count);
  }
  readdir(): Stat[] {
    return [];
  }
  stat({ fid }: { fid: Fid<boolean> }): Stat {
    return {
      type: 0,
      dev: 0,
      qid: fid.aux ? FILE : ROOT,
      mode: fid.aux ? 0o444 : 0x80000555,
      atime: 0,
      mtime: 0,
      length: fid.aux ? BigInt(this.content.length) : 0n,
      name: fid.aux ? "data" : "/",
      uid: "bench",
      gid: "bench",
      muid: "bench",
    };
  }
}
