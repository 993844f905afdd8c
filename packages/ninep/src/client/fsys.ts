import { DM, ORDWR, OREAD, OTRUNC, OWRITE } from "../codec/constants.js";
import { dontTouchStat } from "../codec/stat.js";
import type { Qid, Stat } from "../codec/types.js";
import { NinepRemoteError, withPath } from "./errors.js";
import type { FidClient } from "./fid-client.js";
import { File } from "./file.js";
import { named, splitParent, splitPath } from "./path.js";

export interface CreateOptions {
  /** Permission bits, plus DM flags (default 0644, or 0755 with DM.DIR). */
  perm?: number;
  /** Open mode of the created file (default ORDWR; OREAD for a directory). */
  mode?: number;
  signal?: AbortSignal;
}

/** Changes for `Fsys.wstat`; fields left out are not touched. */
export type StatChanges = Partial<Pick<Stat, "name" | "mode" | "mtime" | "length" | "gid" | "uid" | "atime">>;

/** Runs `fn` on an open file, then closes it; `fn`'s error wins over one from closing. */
async function closing<T, C extends FidClient>(file: File<C>, fn: (f: File<C>) => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await fn(file);
  } catch (err) {
    await file.close().catch(() => {});
    throw err;
  }
  await file.close();
  return result;
}

/** An attached file tree, addressed by slash-separated paths from its root. */
export class Fsys<C extends FidClient = FidClient> {
  constructor(
    readonly client: C,
    /** The fid of the root; keep it open while the tree is in use. */
    readonly rootFid: number,
    readonly rootQid: Qid,
    readonly uname: string,
  ) {}

  /** Walks to `path` and returns a new fid for it (the caller clunks it). */
  async walk(path: string, signal?: AbortSignal): Promise<{ fid: number; qid: Qid }> {
    try {
      const { fid, qids } = await this.client.walk(this.rootFid, splitPath(path), signal);
      return { fid, qid: qids.length > 0 ? qids[qids.length - 1]! : this.rootQid };
    } catch (err) {
      throw withPath(err, path);
    }
  }

  /** Opens a file (OREAD by default; OWRITE, ORDWR, OEXEC with OTRUNC or ORCLOSE). */
  async open(path: string, mode = OREAD, signal?: AbortSignal): Promise<File<C>> {
    const { fid } = await this.walk(path, signal);
    try {
      const reply = await this.client.open(fid, mode, signal);
      return new File(this.client, fid, reply.qid, reply.iounit, mode, path);
    } catch (err) {
      this.client.forget(fid);
      throw withPath(err, path);
    }
  }

  /** Creates a file or (with DM.DIR in perm) a directory and returns it open. */
  async create(path: string, options: CreateOptions = {}): Promise<File<C>> {
    const { parent, name } = splitParent(path);
    if (name === undefined) throw new Error(`cannot create the root`);
    const isDir = ((options.perm ?? 0) & DM.DIR) !== 0;
    const perm = options.perm === DM.DIR ? DM.DIR | 0o755 : (options.perm ?? 0o644);
    const mode = options.mode ?? (isDir ? OREAD : ORDWR);
    const { fid } = await this.walk(parent.join("/"), options.signal);
    try {
      const reply = await this.client.create(fid, name, perm, mode, options.signal);
      return new File(this.client, fid, reply.qid, reply.iounit, mode, path);
    } catch (err) {
      this.client.forget(fid);
      throw withPath(err, path);
    }
  }

  async mkdir(path: string, perm = 0o755, signal?: AbortSignal): Promise<void> {
    const f = await this.create(path, { perm: DM.DIR | perm, mode: OREAD, ...(signal && { signal }) });
    await f.close();
  }

  /**
   * Runs `fn` with a file open and closes it afterwards. If `fn` fails, that error wins; otherwise an error
   * from closing (the server refusing what was written) is thrown.
   */
  async withFile<T>(
    path: string,
    mode: number,
    fn: (f: File<C>) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    return closing(await this.open(path, mode, signal), fn);
  }

  /** Reads a whole file; for a file that blocks, this waits for it to end. */
  async readFile(path: string, signal?: AbortSignal): Promise<Buffer> {
    const { fid } = await this.walk(path, signal);
    try {
      const [opened, stat] = await Promise.all([
        this.client.open(fid, OREAD, signal),
        this.client.stat(fid, signal),
      ]);
      const f = new File(this.client, fid, opened.qid, opened.iounit, OREAD, path);
      return await f.readAll(Number(stat.length), signal ? { signal } : {});
    } catch (err) {
      throw withPath(err, path);
    } finally {
      this.client.forget(fid);
    }
  }

  /**
   * Writes a file's whole content, creating it (with `perm`, default 0644) when it does not exist. An
   * existing file is opened OWRITE|OTRUNC, or OWRITE alone when `truncate` is false.
   */
  async writeFile(
    path: string,
    data: Uint8Array | string,
    options: { truncate?: boolean; perm?: number; signal?: AbortSignal } = {},
  ): Promise<number> {
    const { parent, name } = splitParent(path);
    if (name === undefined) throw new Error("cannot write the root");
    const signal = options.signal;
    const dir = await this.walk(parent.join("/"), signal);
    let file: File<C>;
    try {
      file = await this.openOrCreate(dir.fid, name, path, options);
    } catch (err) {
      throw withPath(err, path);
    }
    return closing(file, (f) => f.write(data, 0, signal));
  }

  /** Opens `name` in the directory `dirFid` for writing, or creates it there; consumes `dirFid`. */
  private async openOrCreate(
    dirFid: number,
    name: string,
    path: string,
    options: { truncate?: boolean; perm?: number; signal?: AbortSignal },
  ): Promise<File<C>> {
    const signal = options.signal;
    let existing: { fid: number } | undefined;
    try {
      existing = await this.client.walk(dirFid, [name], signal);
    } catch (err) {
      if (!(err instanceof NinepRemoteError)) {
        this.client.forget(dirFid);
        throw err;
      }
    }
    if (existing) {
      this.client.forget(dirFid);
      const mode = OWRITE | (options.truncate === false ? 0 : OTRUNC);
      try {
        const reply = await this.client.open(existing.fid, mode, signal);
        return new File(this.client, existing.fid, reply.qid, reply.iounit, mode, path);
      } catch (err) {
        this.client.forget(existing.fid);
        throw err;
      }
    }
    try {
      const reply = await this.client.create(dirFid, name, options.perm ?? 0o644, OWRITE, signal);
      return new File(this.client, dirFid, reply.qid, reply.iounit, OWRITE, path);
    } catch (err) {
      this.client.forget(dirFid);
      throw err;
    }
  }

  /** Yields a file's data as it is read; from a blocking file (like `tail -f`) until aborted. */
  async *stream(path: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<Buffer> {
    const f = await this.open(path, OREAD, options.signal);
    try {
      yield* f.stream(options);
    } finally {
      await f.close();
    }
  }

  async readdir(path: string, signal?: AbortSignal): Promise<Stat[]> {
    return this.withFile(path, OREAD, (f) => f.readdir(signal), signal);
  }

  async stat(path: string, signal?: AbortSignal): Promise<Stat> {
    const { fid } = await this.walk(path, signal);
    try {
      return named(await this.client.stat(fid, signal), path);
    } catch (err) {
      throw withPath(err, path);
    } finally {
      this.client.forget(fid);
    }
  }

  /** Changes a file's name, mode, length, times or group in one atomic Twstat. */
  async wstat(path: string, changes: StatChanges, signal?: AbortSignal): Promise<void> {
    const { fid } = await this.walk(path, signal);
    try {
      await this.client.wstat(fid, { ...dontTouchStat(), ...changes }, signal);
    } catch (err) {
      throw withPath(err, path);
    } finally {
      this.client.forget(fid);
    }
  }

  /** Removes a file or an empty directory; the root (a path that cleans to "/") is refused here. */
  async remove(path: string, signal?: AbortSignal): Promise<void> {
    if (splitPath(path).length === 0) throw new Error("cannot remove the root");
    const { fid } = await this.walk(path, signal);
    try {
      await this.client.remove(fid, signal);
    } catch (err) {
      throw withPath(err, path);
    }
  }

  /** Clunks the root fid; the connection stays open. */
  async close(): Promise<void> {
    await this.client.clunk(this.rootFid);
  }
}
