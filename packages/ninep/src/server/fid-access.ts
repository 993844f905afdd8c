import { NOFID } from "../codec/constants.js";
import { Errno } from "../codec/linux/constants.js";
import type { ConnectionContext } from "./connection-context.js";
import type { FidState } from "./fid-state.js";
import type { FileServer } from "./file-server.js";
import { refuse } from "./ninep-error.js";
import type { PendingRequest } from "./pending-request.js";

/**
 * A fid a request holds: the record, and a promise that settles once earlier requests are done with it —
 * or nothing when none was busy with it, and the request may go on at once.
 */
export interface Claim<A> {
  f: FidState<A>;
  ready: Promise<void> | undefined;
}

/**
 * The fids one request holds until it ends. Most hold one, which is kept without an array: a blocked read
 * holds its fid for as long as it waits, and clients pipeline those by the thousand.
 */
export class HeldFids<A> {
  private first: FidState<A> | undefined;
  private more: FidState<A>[] | undefined;

  add(f: FidState<A>): void {
    if (this.first === undefined) this.first = f;
    else if (this.more === undefined) this.more = [f];
    else this.more.push(f);
  }

  forEach(visit: (f: FidState<A>) => void): void {
    if (this.first !== undefined) visit(this.first);
    this.more?.forEach(visit);
  }
}

/** Waits for `busy` to settle, or rejects when the request is flushed or its session ends first. */
function waitUnlessAborted(busy: Promise<void>, req: PendingRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    const forget = req.onAbort(reject);
    busy.then(() => {
      forget();
      resolve();
    });
  });
}

/**
 * The bookkeeping of fids on one connection. Every method that names a fid runs synchronously when the
 * request arrives, so requests see fids in the order the client sent them: a Topen sent right behind the
 * Twalk that creates its fid finds that fid, and waits for the walk to finish.
 */
export class FidAccess<A> {
  constructor(
    private readonly conn: ConnectionContext<A>,
    private readonly fs: FileServer<A>,
  ) {}

  /**
   * Holds a fid for a request (in `used`, released when the request ends). When an attach, walk, open or
   * create of the fid is under way, `ready` settles once it is done, and rejects if the fid turned out not to
   * exist or the request was flushed meanwhile; when none is, the fid is checked now (this throws). A request
   * that changes the fid calls `f.beginBusy()` right after, so that later requests wait for it in turn.
   */
  claim(req: PendingRequest, used: HeldFids<A>, fid: number): Claim<A> {
    const f = this.conn.fids.get(fid);
    if (!f) throw refuse("unknown fid", Errno.EBADF);
    const barrier = f.busy;
    f.refs++;
    f.inflight.add(req);
    used.add(f);
    if (!barrier) {
      this.check(req, f);
      return { f, ready: undefined };
    }
    const ready = waitUnlessAborted(barrier, req).then(() => this.check(req, f));
    // Handled here as well: a handler may fail before it awaits `ready`.
    ready.catch(() => {});
    return { f, ready };
  }

  /** Throws if the fid is not usable (its creation failed, or it was clunked) or the request was flushed. */
  private check(req: PendingRequest, f: FidState<A>): void {
    if (f.pending || this.conn.fids.get(f.fid) !== f) throw refuse("unknown fid", Errno.EBADF);
    req.throwIfAborted();
  }

  /** Makes a new fid number for attach, auth or walk; it is usable only after `install`. */
  reserve(fid: number, make: () => FidState<A>): FidState<A> {
    if (fid === NOFID) throw refuse("NOFID cannot name a fid", Errno.EBADF);
    if (this.conn.fids.has(fid)) throw refuse("duplicate fid", Errno.EBADF);
    const f = make();
    this.conn.fids.set(fid, f);
    return f;
  }

  /** Forgets a reserved fid whose creation failed. */
  unreserve(f: FidState<A>): void {
    if (this.conn.fids.get(f.fid) === f) this.conn.fids.delete(f.fid);
  }

  /** Makes a reserved fid usable, or releases it if the session was reset meanwhile. */
  install(req: PendingRequest, f: FidState<A>): boolean {
    if (req.discarded || this.conn.fids.get(f.fid) !== f) {
      this.unreserve(f);
      this.release(f);
      return false;
    }
    f.pending = false;
    return true;
  }

  /**
   * Takes a fid out of the table for Tclunk/Tremove once earlier changes to it are done, and aborts the
   * requests still using it. The caller owns the table's reference and must `release` it.
   */
  async detach(req: PendingRequest, fid: number): Promise<FidState<A>> {
    const f = this.conn.fids.get(fid);
    if (!f) throw refuse("unknown fid", Errno.EBADF);
    if (f.busy) await waitUnlessAborted(f.busy, req);
    if (f.pending || this.conn.fids.get(fid) !== f) throw refuse("unknown fid", Errno.EBADF);
    this.conn.fids.delete(fid);
    for (const r of f.inflight) r.abort("fid clunked");
    return f;
  }

  /** Drops one reference to a fid; the last one hands it back to the FileServer. */
  release(f: FidState<A>): void {
    if (--f.refs > 0) return;
    try {
      if (f.auth) f.auth.close?.();
      else if (f.serverOwned) this.fs.clunk?.(f);
    } catch (err) {
      this.conn.options.onError?.(
        new Error(`clunk of fid ${f.fid} failed: ${(err as Error)?.message ?? err}`, { cause: err }),
      );
    }
  }

  /** Ends the requests' hold on the fids they used. */
  releaseAll(req: PendingRequest, used: HeldFids<A>): void {
    used.forEach((f) => {
      f.inflight.delete(req);
      this.release(f);
    });
  }
}
