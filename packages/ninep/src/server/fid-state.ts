import type { Qid } from "../codec/types.js";
import type { AuthSession } from "../auth/server-auth.js";
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
  /** An open or create is in progress. */
  opening = false;
  /** Not yet visible to other requests: the attach, walk or auth creating it has not finished. */
  pending = true;
  iounit = 0;
  refs = 1;
  readonly inflight = new Set<PendingRequest>();
  dir: DirListing | null = null;
  auth: AuthSession | null = null;
  /** The FileServer made this fid (attach, walk, create), so its `clunk` must see it released. */
  serverOwned = false;

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
