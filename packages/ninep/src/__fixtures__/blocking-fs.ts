import { DM, QT } from "../codec/constants.js";
import type { Qid, Stat } from "../codec/types.js";
import type { Fid, FileServer, ReadRequest, RequestContext, WriteRequest } from "../server/file-server.js";
import { NinepError } from "../server/ninep-error.js";

/**
 * A small fixed tree for engine tests:
 *   hello  "hello, world\n"
 *   block  a read waits until its request is aborted (flush, clunk, reset, disconnect)
 *   slow   a read waits (offset) milliseconds, then returns the offset as text: replies come out of order
 *   pipe   a write waits for a read, which receives the written bytes
 *   dir/   holds "a" and "b"
 */
export class BlockingFs implements FileServer<string> {
  readonly aborted: string[] = [];
  readonly clunked: string[] = [];
  readonly blockedReads = new Set<string>();
  private readonly pipeWriters: Array<{ data: Uint8Array; done: (n: number) => void }> = [];
  private readonly pipeReaders: Array<(data: Uint8Array) => void> = [];

  /** Reads of `pipe` waiting for a write. */
  get waitingPipeReads(): number {
    return this.pipeReaders.length;
  }

  private static readonly files: Record<string, Qid> = {
    "/": { type: QT.DIR, version: 0, path: 0n },
    "/hello": { type: 0, version: 0, path: 1n },
    "/block": { type: 0, version: 0, path: 2n },
    "/slow": { type: 0, version: 0, path: 3n },
    "/pipe": { type: 0, version: 0, path: 4n },
    "/dir": { type: QT.DIR, version: 0, path: 5n },
    "/dir/a": { type: 0, version: 0, path: 6n },
    "/dir/b": { type: 0, version: 0, path: 7n },
  };

  attach({ fid }: { fid: Fid<string> }): Qid {
    fid.aux = "/";
    return BlockingFs.files["/"]!;
  }

  walk({ fid, newFid, names }: { fid: Fid<string>; newFid: Fid<string>; names: string[] }): Qid[] {
    let path = fid.aux;
    const qids: Qid[] = [];
    for (const name of names) {
      const next =
        name === ".." ? path.replace(/\/[^/]*$/, "") || "/" : `${path === "/" ? "" : path}/${name}`;
      const qid = BlockingFs.files[next];
      if (!qid || !(BlockingFs.files[path]!.type & QT.DIR)) {
        if (qids.length === 0) throw new NinepError("file not found");
        break;
      }
      path = next;
      qids.push(qid);
    }
    if (qids.length === names.length) newFid.aux = path;
    return qids;
  }

  open(): undefined {
    return undefined;
  }

  async read({ fid, offset, signal }: ReadRequest<string>): Promise<Uint8Array> {
    switch (fid.aux) {
      case "/hello":
        return Buffer.from("hello, world\n").subarray(Number(offset));
      case "/block":
        return this.block(signal);
      case "/slow": {
        const ms = Number(offset);
        await new Promise((resolve) => setTimeout(resolve, ms));
        return Buffer.from(String(offset));
      }
      case "/pipe": {
        const writer = this.pipeWriters.shift();
        if (writer) {
          writer.done(writer.data.length);
          return writer.data;
        }
        return new Promise((resolve) => this.pipeReaders.push(resolve));
      }
      default:
        return Buffer.from(fid.aux);
    }
  }

  private block(signal: AbortSignal): Promise<Uint8Array> {
    const id = `${Math.random()}`;
    this.blockedReads.add(id);
    return new Promise((_resolve, reject) => {
      signal.throwIfAborted();
      signal.addEventListener(
        "abort",
        () => {
          this.blockedReads.delete(id);
          this.aborted.push(String((signal.reason as Error).message));
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  readdir({ fid }: RequestContext<string>): Stat[] {
    const prefix = fid.aux === "/" ? "/" : `${fid.aux}/`;
    return Object.keys(BlockingFs.files)
      .filter((p) => p.startsWith(prefix) && p !== prefix && !p.slice(prefix.length).includes("/"))
      .map((p) => this.statOf(p));
  }

  write({ fid, data, signal }: WriteRequest<string>): number | Promise<number> {
    if (fid.aux !== "/pipe") throw new NinepError("permission denied");
    const copy = Buffer.from(data);
    const reader = this.pipeReaders.shift();
    if (reader) {
      reader(copy);
      return copy.length;
    }
    return new Promise((done, reject) => {
      const writer = { data: copy, done };
      this.pipeWriters.push(writer);
      signal.addEventListener("abort", () => {
        this.pipeWriters.splice(this.pipeWriters.indexOf(writer), 1);
        reject(signal.reason);
      });
    });
  }

  stat({ fid }: RequestContext<string>): Stat {
    return this.statOf(fid.aux);
  }

  private statOf(path: string): Stat {
    const qid = BlockingFs.files[path]!;
    return {
      type: 0,
      dev: 0,
      qid,
      mode: qid.type & QT.DIR ? DM.DIR | 0o555 : 0o644,
      atime: 1,
      mtime: 2,
      length: 0n,
      name: path === "/" ? "/" : path.slice(path.lastIndexOf("/") + 1),
      uid: "sys",
      gid: "sys",
      muid: "sys",
    };
  }

  clunk(fid: Fid<string>): void {
    this.clunked.push(fid.aux);
  }
}
