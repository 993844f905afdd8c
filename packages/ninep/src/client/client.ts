import type { Duplex } from "node:stream";
import { IOHDRSZ, MAXWELEM, NOFID, NOTAG } from "../codec/constants.js";
import { type Dialect, decodeMessage } from "../codec/decode.js";
import { encodeMessage } from "../codec/encode.js";
import { formatMessage } from "../codec/format.js";
import { FrameReader } from "../codec/frame-reader.js";
import { NONUNAME } from "../codec/linux/constants.js";
import { errnoText } from "../codec/linux/errno-text.js";
import type { Qid, ReplyTo, RMessage, Stat, TMessage } from "../codec/types.js";
import type { Address } from "../transport/address.js";
import { dial } from "../transport/dial.js";
import { WriteBatcher } from "../transport/write-batcher.js";
import { type AttachOptions, type ClientOptions, DEFAULT_CLIENT_MSIZE } from "./client-options.js";
import { ConnectionClosedError, NinepRemoteError } from "./errors.js";
import type { FidClient } from "./fid-client.js";
import { FidPool } from "./fid-pool.js";
import { Fsys } from "./fsys.js";
import { LinuxOps } from "./linux-ops.js";
import { abortError, type Pending, type Request } from "./pending-request.js";
import { TagPool } from "./tag-pool.js";
import { negotiateVersion } from "./version.js";

/**
 * A 9P2000 client connection. Any number of requests may be in flight; each is matched to its reply by tag.
 * An AbortSignal on a request sends Tflush; the call rejects at once and the tag is reused only after the
 * server's Rflush. Use `attach` for a path-based API (Fsys), or the fid-level methods directly.
 */
export class NinepClient implements FidClient {
  msize: number;
  /** The protocol settled with the server. */
  dialect: Dialect = "9P2000";
  private readonly linux: LinuxOps;
  private readonly reader: FrameReader;
  private readonly batch: WriteBatcher;
  private readonly pending = new Map<number, Pending>();
  private readonly tags = new TagPool();
  private readonly fids = new FidPool();
  /** The clunks `forget` sent that are not answered yet. */
  private readonly forgetting = new Set<Promise<void>>();
  /** Until the Tversion is answered, replies are read as 9P2000.L's: a server that speaks only that (diod)
   * answers a Tversion of 9P2000 with Rlerror, which 9P2000 has no number for. */
  private versioned = false;
  private closedError: Error | null = null;
  private readonly closedPromise: Promise<void>;
  private resolveClosed!: () => void;

  private constructor(
    private readonly socket: Duplex,
    private readonly options: ClientOptions,
  ) {
    this.msize = options.msize ?? DEFAULT_CLIENT_MSIZE;
    this.linux = new LinuxOps(
      (request, signal) => this.rpc(request as unknown as Request, signal) as never,
      (fid, names, signal) => this.rpc({ type: "Twalk", fid, newfid: fid, wnames: names }, signal),
    );
    this.reader = new FrameReader(this.msize);
    this.batch = new WriteBatcher(socket);
    this.closedPromise = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (err) =>
      this.shutdown(new ConnectionClosedError(`connection failed: ${err.message}`)),
    );
    socket.on("close", () => this.shutdown(new ConnectionClosedError("connection closed")));
  }

  /** Negotiates 9P2000 over a connected stream. */
  static async connect(stream: Duplex, options: ClientOptions = {}): Promise<NinepClient> {
    const client = new NinepClient(stream, options);
    try {
      await client.version();
    } catch (err) {
      client.close();
      throw err;
    }
    return client;
  }

  /** Dials `unix!PATH`, `tcp!HOST!PORT` or a socket path and negotiates 9P2000. */
  static async dial(address: Address | string, options: ClientOptions & { signal?: AbortSignal } = {}) {
    return NinepClient.connect(await dial(address, options.signal), options);
  }

  /** Resolves when the connection has ended. */
  get closed(): Promise<void> {
    return this.closedPromise;
  }

  /** Largest payload of one read or write. */
  get maxIo(): number {
    return this.msize - IOHDRSZ;
  }

  close(): void {
    this.socket.destroy();
    this.shutdown(new ConnectionClosedError("connection closed by client"));
  }

  private async version(): Promise<void> {
    const settled = await negotiateVersion((m) => this.rpc(m), this.options.dialect ?? "9P2000", this.msize);
    this.dialect = settled.dialect;
    this.versioned = true;
    this.msize = settled.msize;
    this.reader.maxSize = settled.msize;
  }

  /** Sends one request and waits for its reply; an Rerror rejects with NinepRemoteError. */
  async rpc<T extends Request>(request: T, signal?: AbortSignal): Promise<ReplyTo<T>> {
    if (this.closedError) throw this.closedError;
    if (signal?.aborted) throw abortError(signal);
    const tag = request.type === "Tversion" ? NOTAG : await this.tags.acquire();
    // Both may have come while a tag was awaited: an abort then is seen here, before anything is sent (its
    // listener, added below, would never hear an abort that has already happened).
    if (this.closedError || signal?.aborted) {
      if (tag !== NOTAG) this.tags.release(tag);
      throw this.closedError ?? abortError(signal!);
    }
    return new Promise<ReplyTo<T>>((resolve, reject) => {
      const entry: Pending = { request, resolve: resolve as (r: RMessage) => void, reject, flushed: false };
      this.pending.set(tag, entry);
      const onAbort = () => {
        if (this.pending.get(tag) !== entry || entry.flushed) return;
        entry.flushed = true;
        reject(abortError(signal!));
        void this.flush(tag);
      };
      if (signal) {
        signal.addEventListener("abort", onAbort, { once: true });
        entry.resolve = (r) => {
          signal.removeEventListener("abort", onAbort);
          resolve(r as ReplyTo<T>);
        };
        entry.reject = (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        };
      }
      this.send({ ...request, tag } as TMessage);
    });
  }

  /** Sends Tflush for `oldtag`; the tag is given back only after Rflush, as flush(5) requires. */
  private async flush(oldtag: number): Promise<void> {
    try {
      await this.rpc({ type: "Tflush", oldtag });
    } catch {
      // the connection ended: shutdown has already settled every request
    }
    const old = this.pending.get(oldtag);
    if (old?.flushed) {
      this.pending.delete(oldtag);
      this.tags.release(oldtag);
    }
  }

  private send(m: TMessage): void {
    this.options.trace?.(`-> ${formatMessage(m, { maxData: 64 })}`);
    this.batch.write(encodeMessage(m));
  }

  private onData(chunk: Buffer): void {
    this.reader.push(chunk);
    for (;;) {
      let reply: RMessage;
      try {
        const frame = this.reader.next();
        if (!frame) return;
        const m = decodeMessage(frame, this.versioned ? this.dialect : "9P2000.L");
        if (m.type[0] !== "R") throw new Error(`server sent a request (${m.type})`);
        reply = m as RMessage;
      } catch (err) {
        this.socket.destroy();
        this.shutdown(new ConnectionClosedError(`protocol error from server: ${(err as Error).message}`));
        return;
      }
      this.options.trace?.(`<- ${formatMessage(reply, { maxData: 64 })}`);
      this.dispatch(reply);
    }
  }

  private dispatch(reply: RMessage): void {
    const entry = this.pending.get(reply.tag);
    if (!entry) return;
    const expected = `R${entry.request.type.slice(1)}`;
    if (entry.flushed) {
      // The reply won the race with our Tflush: the tag stays reserved until Rflush, but what the request
      // created must be undone since its caller has already been told it was aborted.
      if (reply.type === expected) this.undoLate(entry.request, reply);
      return;
    }
    this.pending.delete(reply.tag);
    if (reply.tag !== NOTAG) this.tags.release(reply.tag);
    if (reply.type === "Rerror") entry.reject(new NinepRemoteError(reply.ename, entry.request.type));
    else if (reply.type === "Rlerror")
      entry.reject(new NinepRemoteError(errnoText(reply.ecode), entry.request.type, undefined, reply.ecode));
    else if (reply.type !== expected) {
      entry.reject(new ConnectionClosedError(`server answered ${entry.request.type} with ${reply.type}`));
      this.close();
    } else entry.resolve(reply);
  }

  private undoLate(request: Request, reply: RMessage): void {
    if (request.type === "Twalk" && reply.type === "Rwalk") {
      if (request.newfid !== request.fid && reply.wqids.length === request.wnames.length)
        this.forget(request.newfid);
    } else if (request.type === "Tattach") {
      this.forget(request.fid);
    } else if (request.type === "Tauth") {
      this.forget(request.afid);
    }
  }

  private shutdown(err: Error): void {
    if (this.closedError) return;
    this.closedError = err;
    for (const entry of this.pending.values()) if (!entry.flushed) entry.reject(err);
    this.pending.clear();
    this.resolveClosed();
  }

  // Fid-level operations. Fid numbers come from `attach` and `walk`; `clunk` and `remove` give them back.

  /** Attaches to the server's tree and returns a path-based view of it. */
  async attach(options: AttachOptions): Promise<Fsys<NinepClient>> {
    const aname = options.aname ?? "";
    const afid = options.authenticator ? await this.authenticate(options, aname) : NOFID;
    const fid = this.fids.acquire();
    try {
      const reply = await this.rpc(
        { type: "Tattach", fid, afid, uname: options.uname, aname, ...this.nUname(options) },
        options.signal,
      );
      return new Fsys<NinepClient>(this, fid, reply.qid, options.uname);
    } catch (err) {
      if (!(err instanceof Error && err.name === "AbortError")) this.fids.release(fid);
      throw err;
    } finally {
      if (afid !== NOFID) this.forget(afid);
    }
  }

  /** Tauth's and Tattach's n_uname, which only 9P2000.L has. */
  private nUname(options: AttachOptions): { nUname?: number } {
    return this.dialect === "9P2000.L" ? { nUname: options.nUname ?? NONUNAME } : {};
  }

  private async authenticate(options: AttachOptions, aname: string): Promise<number> {
    const afid = this.fids.acquire();
    try {
      await this.rpc(
        { type: "Tauth", afid, uname: options.uname, aname, ...this.nUname(options) },
        options.signal,
      );
    } catch (err) {
      this.fids.release(afid);
      if (err instanceof NinepRemoteError) return NOFID;
      throw err;
    }
    try {
      await options.authenticator!(
        {
          read: async (count) => Buffer.from((await this.read(afid, 0n, count, options.signal)).data),
          write: (data) => this.write(afid, 0n, data, options.signal),
        },
        { uname: options.uname, aname },
      );
    } catch (err) {
      this.forget(afid);
      throw err;
    }
    return afid;
  }

  /**
   * Walks from `fid` to a new fid through any number of names (chaining walks of 16). Rejects with
   * NinepRemoteError "file not found" — naming the first missing element — when not every name exists.
   */
  async walk(
    fid: number,
    names: readonly string[],
    signal?: AbortSignal,
  ): Promise<{ fid: number; qids: Qid[] }> {
    let from = fid;
    const qids: Qid[] = [];
    let i = 0;
    do {
      const chunk = names.slice(i, i + MAXWELEM);
      const newfid = this.fids.acquire();
      let reply: { wqids: Qid[] };
      try {
        reply = await this.rpc({ type: "Twalk", fid: from, newfid, wnames: chunk }, signal);
      } catch (err) {
        if (!(err instanceof Error && err.name === "AbortError")) this.fids.release(newfid);
        if (from !== fid) this.forget(from);
        throw err;
      }
      if (from !== fid) this.forget(from);
      if (reply.wqids.length < chunk.length) {
        this.fids.release(newfid);
        const missing = names[i + reply.wqids.length];
        throw new NinepRemoteError(`'${missing}' file not found`, "Twalk");
      }
      qids.push(...reply.wqids);
      from = newfid;
      i += chunk.length;
    } while (i < names.length);
    return { fid: from, qids };
  }

  open(fid: number, mode: number, signal?: AbortSignal) {
    if (this.dialect === "9P2000.L") return this.linux.open(fid, mode, signal);
    return this.rpc({ type: "Topen", fid, mode }, signal);
  }

  create(fid: number, name: string, perm: number, mode: number, signal?: AbortSignal) {
    if (this.dialect === "9P2000.L") return this.linux.create(fid, name, perm, mode, signal);
    return this.rpc({ type: "Tcreate", fid, name, perm, mode }, signal);
  }

  read(fid: number, offset: bigint, count: number, signal?: AbortSignal) {
    return this.rpc({ type: "Tread", fid, offset, count: Math.min(count, this.maxIo) }, signal);
  }

  /** One Twrite of at most maxIo bytes; returns the count the server accepted. */
  async write(fid: number, offset: bigint, data: Uint8Array, signal?: AbortSignal): Promise<number> {
    const reply = await this.rpc({ type: "Twrite", fid, offset, data }, signal);
    return reply.count;
  }

  /** The file's stat; in 9P2000.L its attributes, without a name (the caller knows it). */
  async stat(fid: number, signal?: AbortSignal): Promise<Stat> {
    if (this.dialect === "9P2000.L") return this.linux.stat(fid, signal);
    return (await this.rpc({ type: "Tstat", fid }, signal)).stat;
  }

  async wstat(fid: number, stat: Stat, signal?: AbortSignal): Promise<void> {
    if (this.dialect === "9P2000.L") return this.linux.wstat(fid, stat, signal);
    await this.rpc({ type: "Twstat", fid, stat }, signal);
  }

  /**
   * The entries of a directory open for reading, in 9P2000.L: Treaddir for the names, then each one's
   * attributes (walked to from the directory, all at once).
   */
  async readdir(fid: number, signal?: AbortSignal): Promise<Stat[]> {
    const entries = await this.linux.readdir(fid, this.maxIo, signal);
    return Promise.all(
      entries.map(async ({ name }) => {
        const { fid: entry } = await this.walk(fid, [name], signal);
        try {
          return { ...(await this.linux.stat(entry, signal)), name };
        } finally {
          this.forget(entry);
        }
      }),
    );
  }

  /**
   * Clunks a fid and gives its number back. The fid is gone whatever the reply (clunk(5)), but a server may
   * answer Rerror to say that finishing the file failed (for example, what was written was refused): that
   * rejects.
   */
  async clunk(fid: number): Promise<void> {
    try {
      await this.rpc({ type: "Tclunk", fid });
    } catch (err) {
      if (err instanceof NinepRemoteError) throw err;
    } finally {
      this.fids.release(fid);
    }
  }

  /** Clunks a fid without waiting or caring how the server answers: for fids only walked, never opened. */
  forget(fid: number): void {
    const clunked = this.clunk(fid).catch(() => {});
    this.forgetting.add(clunked);
    void clunked.then(() => this.forgetting.delete(clunked));
  }

  /** Closes the connection once the clunks `forget` sent are answered: the server is left no fid of ours
   * that the caller gave up (clunk the root first, `Fsys.close`). */
  async end(): Promise<void> {
    while (this.forgetting.size > 0) await Promise.all(this.forgetting);
    this.close();
  }

  /** Removes the file a fid denotes; the fid is clunked either way. */
  async remove(fid: number, signal?: AbortSignal): Promise<void> {
    try {
      await this.rpc({ type: "Tremove", fid }, signal);
    } finally {
      this.fids.release(fid);
    }
  }
}
