import type { AuthSession } from "../auth/server-auth.js";
import type { Dirent } from "../codec/linux/messages.js";
import type { Qid } from "../codec/types.js";
import type { Fid } from "./file-server.js";
import type { PendingRequest } from "./pending-request.js";

/** A directory listing being read through one fid: whole encoded entries and where the next read starts. */
export interface DirListing {
  entries: Buffer[];
  index: number;
  offset: bigint;
}

/**
 * The engine's record of a fid. It stays alive while the fid table or any in-flight request refers to it;
 * the FileServer's `clunk` runs when the last reference goes.
 */
export class FidState<A> implements Fid<A> {
  qid: Qid;
  mode: number | null = null;
  /** Not yet usable: the attach or walk creating it has not finished (or failed). */
  pending = true;
  iounit = 0;
  refs = 1;
  readonly inflight = new Set<PendingRequest>();
  dir: DirListing | null = null;
  /** A 9P2000.L listing being read through this fid with Treaddir (cookies are indexes into it). */
  dirents: Dirent[] | null = null;
  /** A 9P2000.L extended-attribute fid (Txattrwalk): it reads as empty. */
  xattr = false;
  auth: AuthSession | null = null;
  /** The FileServer made this fid (attach, walk, create), so its `clunk` must see it released. */
  serverOwned = false;

  private busyUntil: Promise<void> | null = null;

  /**
   * Settles when the attach, walk, open or create that last started changing this fid is done. Requests
   * naming the fid wait for it, so a client may send dependent requests without waiting for each reply.
   */
  get busy(): Promise<void> | null {
    return this.busyUntil;
  }

  /** Marks the fid as being changed until the returned function is called. */
  beginBusy(): () => void {
    let end!: () => void;
    const until = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.busyUntil = until;
    return () => {
      if (this.busyUntil === until) this.busyUntil = null;
      end();
    };
  }

  constructor(
    readonly fid: number,
    readonly uname: string,
    readonly aname: string,
    qid: Qid,
    public aux: A,
  ) {
    this.qid = qid;
  }
}
