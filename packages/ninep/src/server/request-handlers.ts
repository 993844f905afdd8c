import { ORCLOSE, OREAD, OTRUNC, OWRITE } from "../codec/constants.js";
import { Errno } from "../codec/linux/constants.js";
import { isDontTouchQid, isSyncStat } from "../codec/stat.js";
import type {
  Qid,
  Rcreate,
  RMessage,
  Ropen,
  Rstat,
  Tclunk,
  Tcreate,
  TMessage,
  Topen,
  Tread,
  Tremove,
  Tstat,
  Tversion,
  Twalk,
  Twrite,
  Twstat,
} from "../codec/types.js";
import { statSize } from "../codec/writer.js";
import { AttachHandlers } from "./attach-handlers.js";
import type { ConnectionContext } from "./connection-context.js";
import { readDirectory } from "./dir-read.js";
import { FidAccess } from "./fid-access.js";
import { FidState } from "./fid-state.js";
import type { FileServer, OpenResult } from "./file-server.js";
import { call, checkName, isDir, live } from "./handler-call.js";
import { handleLinux, isLinuxRequest } from "./linux/linux-handlers.js";
import type { PlainHandlers } from "./linux/plain-handlers.js";
import { UserIds } from "./linux/user-ids.js";
import { refuse } from "./ninep-error.js";
import type { PendingRequest } from "./pending-request.js";

const MAX_OFFSET = (1n << 63n) - 1n;
const OPEN_MODE_BITS = 3 | OTRUNC | ORCLOSE;

type Work = Exclude<TMessage, Tversion | { type: "Tflush" }>;

function checkOpenMode(mode: number): void {
  if ((mode & ~OPEN_MODE_BITS) !== 0) throw refuse(`bad open mode 0x${mode.toString(16)}`, Errno.EINVAL);
}

/**
 * The work of each 9P request: the checks intro(5) and the message's own page define, then the FileServer's
 * handler, then committing the result (new fids, open state) unless the session was reset meanwhile.
 * Each handler does its fid bookkeeping before its first `await`, that is, in arrival order.
 */
export class RequestHandlers<A> implements PlainHandlers<A> {
  readonly fids: FidAccess<A>;
  /** Users' names and numbers, for 9P2000.L's attributes. */
  readonly ids = new UserIds();
  /** Tauth and Tattach: who the connection's users are. */
  private readonly attaching: AttachHandlers<A>;

  constructor(
    readonly conn: ConnectionContext<A>,
    readonly fs: FileServer<A>,
  ) {
    this.fids = new FidAccess(conn, fs);
    this.attaching = new AttachHandlers(conn, fs, this.fids, this.ids);
  }

  run(req: PendingRequest, m: Exclude<TMessage, Tversion>): void {
    if (m.type === "Tflush") {
      this.flush(req, m.oldtag);
      return;
    }
    const used: FidState<A>[] = [];
    this.handle(req, m, used).then(
      (reply) => {
        this.fids.releaseAll(req, used);
        this.conn.respond(req, reply);
      },
      (err: unknown) => {
        this.fids.releaseAll(req, used);
        this.conn.respondError(req, err);
      },
    );
  }

  private flush(req: PendingRequest, oldtag: number): void {
    const old = this.conn.tags.get(oldtag);
    if (!old || old === req) {
      this.conn.respond(req, { type: "Rflush", tag: req.tag });
      return;
    }
    old.flushes.push(req);
    old.abort("flushed");
  }

  private handle(req: PendingRequest, m: Work, used: FidState<A>[]): Promise<RMessage> {
    if (isLinuxRequest(m)) return handleLinux(this, req, m, used);
    switch (m.type) {
      case "Tauth":
        return this.attaching.auth(m);
      case "Tattach":
        return this.attaching.attach(req, m);
      case "Twalk":
        return this.walk(req, m, used);
      case "Topen":
        return this.open(req, m, used);
      case "Tcreate":
        return this.create(req, m, used);
      case "Tread":
        return this.read(req, m, used);
      case "Twrite":
        return this.write(req, m, used);
      case "Tclunk":
        return this.clunk(req, m);
      case "Tremove":
        return this.remove(req, m);
      case "Tstat":
        return this.stat(req, m, used);
      case "Twstat":
        return this.wstat(req, m, used);
    }
  }

  private async walk(req: PendingRequest, m: Twalk, used: FidState<A>[]): Promise<RMessage> {
    const { f, ready } = this.fids.claim(req, used, m.fid);
    for (const name of m.wnames) {
      if (name !== "..") checkName(name);
    }
    const sameFid = m.newfid === m.fid;
    const make = () => new FidState<A>(m.newfid, f.uname, f.aname, f.qid, f.aux);
    const nf = sameFid ? make() : this.fids.reserve(m.newfid, make);
    const end = (sameFid ? f : nf).beginBusy();
    try {
      await ready;
      if (f.auth) throw refuse("cannot walk an authentication file", Errno.EINVAL);
      // Linux's clients walk from an open directory to its entries (diodls -l does); that leaves the open
      // fid as it was, unless it is the fid being walked.
      if (f.mode !== null && (this.conn.dialect !== "9P2000.L" || sameFid))
        throw refuse("cannot walk from an open fid", Errno.EINVAL);
      if (m.wnames.length > 0 && !isDir(f)) throw refuse("walk in non-directory", Errno.ENOTDIR);
      nf.qid = f.qid;
      nf.aux = f.aux;
      return await this.walkInto(req, m, f, nf);
    } catch (err) {
      if (!sameFid) this.fids.unreserve(nf);
      throw err;
    } finally {
      end();
    }
  }

  private async walkInto(req: PendingRequest, m: Twalk, f: FidState<A>, nf: FidState<A>): Promise<RMessage> {
    let qids = await this.fs.walk(call(req, f, { newFid: nf, names: m.wnames }));
    if (qids.length > m.wnames.length) qids = qids.slice(0, m.wnames.length);
    if (qids.length < m.wnames.length) {
      if (qids.length === 0) throw refuse("file not found", Errno.ENOENT);
      if (m.newfid !== m.fid) this.fids.unreserve(nf);
      return { type: "Rwalk", tag: m.tag, wqids: qids };
    }
    nf.serverOwned = true;
    if (qids.length > 0) nf.qid = qids[qids.length - 1]!;
    if (m.newfid !== m.fid) {
      if (!this.fids.install(req, nf)) throw refuse("interrupted", Errno.EINTR);
    } else if (req.discarded || this.conn.fids.get(m.fid) !== f) {
      this.fids.release(nf);
      throw refuse("unknown fid", Errno.EBADF);
    } else {
      nf.pending = false;
      this.conn.fids.set(m.fid, nf);
      this.fids.release(f);
    }
    return { type: "Rwalk", tag: m.tag, wqids: qids };
  }

  private iounit(requested: number | undefined): number {
    const max = this.conn.maxIo;
    return requested && requested > 0 ? Math.min(requested, max) : max;
  }

  /** Topen and Tcreate: `start` does the request's own checks and FileServer call; the fid is left open. */
  private async openFid(
    req: PendingRequest,
    used: FidState<A>[],
    fid: number,
    mode: number,
    start: (f: FidState<A>) => Promise<OpenResult | undefined> | OpenResult | undefined,
  ): Promise<{ qid: Qid; iounit: number }> {
    const { f, ready } = this.fids.claim(req, used, fid);
    const end = f.beginBusy();
    try {
      await ready;
      if (f.auth) throw refuse("cannot open an authentication file", Errno.EINVAL);
      if (f.mode !== null) throw refuse("file already open", Errno.EINVAL);
      checkOpenMode(mode);
      const res = await start(f);
      if (res?.qid) f.qid = res.qid;
      f.iounit = this.iounit(res?.iounit);
      f.mode = mode;
      return { qid: f.qid, iounit: f.iounit };
    } finally {
      end();
    }
  }

  async open(req: PendingRequest, m: Topen, used: FidState<A>[]): Promise<Ropen> {
    const opened = await this.openFid(req, used, m.fid, m.mode, (f) => {
      if (isDir(f) && m.mode !== OREAD) throw refuse("is a directory", Errno.EISDIR);
      return this.fs.open(call(req, f, { mode: m.mode }));
    });
    return { type: "Ropen", tag: m.tag, ...opened };
  }

  async create(req: PendingRequest, m: Tcreate, used: FidState<A>[]): Promise<Rcreate> {
    const created = await this.openFid(req, used, m.fid, m.mode, (f) => {
      if (!isDir(f)) throw refuse("create in non-directory", Errno.ENOTDIR);
      checkName(m.name);
      if ((m.perm & 0x80000000) !== 0 && (m.mode & ~ORCLOSE) !== OREAD)
        throw refuse("is a directory", Errno.EISDIR);
      if (!this.fs.create) throw refuse("create prohibited", Errno.EPERM);
      return this.fs.create(call(req, f, { name: m.name, perm: m.perm, mode: m.mode }));
    });
    return { type: "Rcreate", tag: m.tag, ...created };
  }

  private async read(req: PendingRequest, m: Tread, used: FidState<A>[]): Promise<RMessage> {
    const { f, ready } = this.fids.claim(req, used, m.fid);
    await ready;
    const count = Math.min(m.count, this.conn.maxIo);
    if (f.auth) return { type: "Rread", tag: m.tag, data: await f.auth.read(count, live(req)) };
    if (f.xattr) return { type: "Rread", tag: m.tag, data: Buffer.alloc(0) };
    if (f.mode === null || (f.mode & 3) === OWRITE) throw refuse("file not open for reading", Errno.EBADF);
    if (m.offset > MAX_OFFSET) throw refuse("bad offset", Errno.EINVAL);
    if (isDir(f)) {
      return {
        type: "Rread",
        tag: m.tag,
        data: await readDirectory(this.fs, f, m.offset, count, call(req, f)),
      };
    }
    const data = await this.fs.read(call(req, f, { offset: m.offset, count }));
    return { type: "Rread", tag: m.tag, data: data.length > count ? data.subarray(0, count) : data };
  }

  private async write(req: PendingRequest, m: Twrite, used: FidState<A>[]): Promise<RMessage> {
    const { f, ready } = this.fids.claim(req, used, m.fid);
    await ready;
    if (f.auth) return { type: "Rwrite", tag: m.tag, count: await this.attaching.prove(req, f, m) };
    const access = f.mode === null ? -1 : f.mode & 3;
    if (access !== OWRITE && access !== 2) throw refuse("file not open for writing", Errno.EBADF);
    if (m.offset > MAX_OFFSET) throw refuse("bad offset", Errno.EINVAL);
    if (!this.fs.write) throw refuse("write prohibited", Errno.EPERM);
    const n = await this.fs.write(call(req, f, { offset: m.offset, data: m.data }));
    return { type: "Rwrite", tag: m.tag, count: Math.max(0, Math.min(n, m.data.length)) };
  }

  private async clunk(req: PendingRequest, m: Tclunk): Promise<RMessage> {
    const f = await this.fids.detach(req, m.fid);
    f.inflight.add(req);
    try {
      if (f.mode !== null) {
        try {
          await this.fs.close?.(call(req, f));
        } finally {
          if ((f.mode & ORCLOSE) !== 0) await this.fs.remove?.(call(req, f));
        }
      }
    } finally {
      f.inflight.delete(req);
      this.fids.release(f);
    }
    return { type: "Rclunk", tag: m.tag };
  }

  private async remove(req: PendingRequest, m: Tremove): Promise<RMessage> {
    const f = await this.fids.detach(req, m.fid);
    f.inflight.add(req);
    try {
      if (f.auth) throw refuse("cannot remove an authentication file", Errno.EINVAL);
      if (!this.fs.remove) throw refuse("remove prohibited", Errno.EPERM);
      await this.fs.remove(call(req, f));
    } finally {
      f.inflight.delete(req);
      this.fids.release(f);
    }
    return { type: "Rremove", tag: m.tag };
  }

  async stat(req: PendingRequest, m: Tstat, used: FidState<A>[]): Promise<Rstat> {
    const { f, ready } = this.fids.claim(req, used, m.fid);
    await ready;
    if (f.auth) throw refuse("cannot stat an authentication file", Errno.EINVAL);
    const stat = await this.fs.stat(call(req, f));
    if (statSize(stat) + 9 > this.conn.msize) throw refuse("stat does not fit in msize", Errno.EMSGSIZE);
    return { type: "Rstat", tag: m.tag, stat };
  }

  async wstat(req: PendingRequest, m: Twstat, used: FidState<A>[]): Promise<RMessage> {
    const { f, ready } = this.fids.claim(req, used, m.fid);
    await ready;
    if (f.auth) throw refuse("cannot wstat an authentication file", Errno.EINVAL);
    const s = m.stat;
    if (s.type !== 0xffff) throw refuse("wstat cannot change type", Errno.EINVAL);
    if (s.dev !== 0xffffffff) throw refuse("wstat cannot change dev", Errno.EINVAL);
    if (!isDontTouchQid(s.qid)) throw refuse("wstat cannot change qid", Errno.EINVAL);
    if (s.muid !== "") throw refuse("wstat cannot change muid", Errno.EINVAL);
    if (s.mode !== 0xffffffff && ((s.mode & 0x80000000) !== 0) !== isDir(f)) {
      throw refuse("wstat cannot change DMDIR bit", Errno.EINVAL);
    }
    if (s.name !== "") checkName(s.name);
    if (!this.fs.wstat) {
      if (isSyncStat(s)) return { type: "Rwstat", tag: m.tag };
      throw refuse("wstat prohibited", Errno.EPERM);
    }
    await this.fs.wstat(call(req, f, { stat: s }));
    return { type: "Rwstat", tag: m.tag };
  }
}
