import { OREAD, QT } from "../codec/constants.js";
import type { Qid, Stat } from "../codec/types.js";
import { parseDirEntries } from "./dir-entries.js";
import { withPath } from "./errors.js";
import type { FidClient } from "./fid-client.js";
import { named } from "./path.js";

export interface ReadAllOptions {
  signal?: AbortSignal;
  /** Reads kept in flight when the file's length is known (default 8). Short reads fall back to one at a time. */
  window?: number;
}

/** An open fid. Close it when done (or use `using`-style helpers on Fsys that do). */
export class File<C extends FidClient = FidClient> {
  private closed = false;

  constructor(
    readonly client: C,
    readonly fid: number,
    readonly qid: Qid,
    /** The largest read or write the server guarantees to handle whole. */
    readonly iounit: number,
    readonly mode: number,
    readonly path: string,
  ) {}

  get isDirectory(): boolean {
    return (this.qid.type & QT.DIR) !== 0;
  }

  /** Bytes per request: the iounit, or what msize allows when the server did not say. */
  get chunkSize(): number {
    return this.iounit > 0 ? Math.min(this.iounit, this.client.maxIo) : this.client.maxIo;
  }

  /** One Tread; an empty result means end of file. */
  async read(offset: number | bigint, count = this.chunkSize, signal?: AbortSignal): Promise<Buffer> {
    try {
      const reply = await this.client.read(this.fid, BigInt(offset), Math.min(count, this.chunkSize), signal);
      const d = reply.data;
      return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
    } catch (err) {
      throw withPath(err, this.path);
    }
  }

  /** Writes all of `data` at `offset`, split into iounit-sized Twrites; returns the bytes written. */
  async write(data: Uint8Array | string, offset: number | bigint = 0, signal?: AbortSignal): Promise<number> {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let pos = BigInt(offset);
    let done = 0;
    try {
      do {
        const chunk = bytes.subarray(done, done + this.chunkSize);
        const n = await this.client.write(this.fid, pos, chunk, signal);
        if (n === 0 && chunk.length > 0) throw new Error(`${this.path}: server accepted none of a write`);
        done += n;
        pos += BigInt(n);
      } while (done < bytes.length);
    } catch (err) {
      throw withPath(err, this.path);
    }
    return done;
  }

  /**
   * Yields the file's data in order until a read returns nothing. From a file that blocks (a log, a
   * `tail`), this keeps yielding as data arrives; abort the signal to stop.
   */
  async *stream(options: { signal?: AbortSignal; offset?: number | bigint } = {}): AsyncGenerator<Buffer> {
    let offset = BigInt(options.offset ?? 0);
    for (;;) {
      const chunk = await this.read(offset, this.chunkSize, options.signal);
      if (chunk.length === 0) return;
      offset += BigInt(chunk.length);
      yield chunk;
    }
  }

  /** Reads the whole file. When `length` is known, several reads are kept in flight. */
  async readAll(length = 0, options: ReadAllOptions = {}): Promise<Buffer> {
    const parts: Buffer[] = [];
    let offset = 0;
    const size = this.chunkSize;
    const window = Math.max(1, options.window ?? 8);
    if (length > size && window > 1) {
      let inFlight: Array<{ at: number; read: Promise<Buffer> }> = [];
      let next = 0;
      const fill = () => {
        while (inFlight.length < window && next < length) {
          const read = this.read(next, size, options.signal);
          // Marked handled now: if an earlier read fails, the later ones are abandoned unawaited.
          read.catch(() => {});
          inFlight.push({ at: next, read });
          next += size;
        }
      };
      fill();
      while (inFlight.length > 0) {
        const { at, read } = inFlight.shift()!;
        const chunk = await read;
        parts.push(chunk);
        offset = at + chunk.length;
        if (chunk.length < size) {
          // A short read may not be the end: finish one read at a time from here.
          inFlight = [];
          break;
        }
        fill();
      }
    }
    for await (const chunk of this.stream({ offset, ...(options.signal && { signal: options.signal }) })) {
      parts.push(chunk);
    }
    return Buffer.concat(parts);
  }

  /** Lists a directory opened for reading. */
  async readdir(signal?: AbortSignal): Promise<Stat[]> {
    if (this.mode !== OREAD || !this.isDirectory)
      throw new Error(`${this.path}: not a directory open for reading`);
    if (this.client.dialect === "9P2000.L") {
      try {
        return await this.client.readdir(this.fid, signal);
      } catch (err) {
        throw withPath(err, this.path);
      }
    }
    const entries: Stat[] = [];
    for await (const chunk of this.stream(signal ? { signal } : {})) entries.push(...parseDirEntries(chunk));
    return entries;
  }

  async stat(signal?: AbortSignal): Promise<Stat> {
    try {
      return named(await this.client.stat(this.fid, signal), this.path);
    } catch (err) {
      throw withPath(err, this.path);
    }
  }

  /**
   * Clunks the fid. Rejects if the server reports that finishing the file failed (the fid is gone anyway).
   * Safe to call more than once.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.clunk(this.fid);
  }
}
