import type { Qid, Stat } from "../codec/types.js";

/**
 * A fid as the server engine tracks it. The engine owns every field but `aux`, which belongs to the
 * FileServer: set it in attach, walk (on `newFid`) and create, read it everywhere else.
 */
export interface Fid<A = unknown> {
  /** The number the client chose. */
  readonly fid: number;
  /** The user named in the Tattach this fid descends from (already authenticated when auth is on). */
  readonly uname: string;
  /** The tree named in that Tattach. */
  readonly aname: string;
  /** The file this fid denotes. */
  readonly qid: Qid;
  /** The mode of the Topen/Tcreate that opened this fid, or null while it is not open. */
  readonly mode: number | null;
  /** The FileServer's own state for this fid. */
  aux: A;
}

/** What every request handler receives. */
export interface RequestContext<A> {
  fid: Fid<A>;
  /**
   * Fires when the request is flushed (Tflush), its fid is clunked, the session is reset by Tversion, or the
   * connection closes. A handler that blocks must stop promptly when it fires; the engine answers a flushed
   * request with whatever the handler returns or throws (an AbortError becomes Rerror "interrupted").
   */
  signal: AbortSignal;
  /**
   * The same event as `signal`, for a fraction of its cost: calls `listener` once with the reason when the
   * request is aborted (at once if it already was), and returns a function that removes it. An AbortSignal
   * costs about a kilobyte, which a handler that parks requests for long (a blocking read a client may
   * pipeline thousands of) need not pay for each.
   */
  onAbort(listener: (reason: unknown) => void): () => void;
}

export interface AttachRequest<A> extends RequestContext<A> {
  uname: string;
  aname: string;
}

export interface WalkRequest<A> extends RequestContext<A> {
  /**
   * The fid that will denote the result. Its `aux` starts as a copy of the source fid's `aux` (a clone);
   * set it to describe the file reached. The engine installs it only when every name was walked.
   */
  newFid: Fid<A>;
  /** One to 16 names, each non-empty, without "/" and not "."; ".." means the parent. */
  names: string[];
}

export interface OpenRequest<A> extends RequestContext<A> {
  /** OREAD, OWRITE, ORDWR or OEXEC, possibly with OTRUNC and ORCLOSE. */
  mode: number;
}

/** What open and create may return: a changed qid and the iounit to report (0 means msize − 24). */
export interface OpenResult {
  qid?: Qid;
  iounit?: number;
}

export interface CreateRequest<A> extends RequestContext<A> {
  name: string;
  /** Permission bits with DM flags; DM.DIR asks for a directory. */
  perm: number;
  mode: number;
}

export interface CreateResult {
  /** The new file's qid; the fid now denotes it, opened with the request's mode. */
  qid: Qid;
  iounit?: number;
}

export interface ReadRequest<A> extends RequestContext<A> {
  offset: bigint;
  /** At most msize − 24; the engine has already clamped it. */
  count: number;
}

export interface WriteRequest<A> extends RequestContext<A> {
  offset: bigint;
  /** A view into the received frame: copy it if you keep it beyond the call. */
  data: Uint8Array;
}

export interface WstatRequest<A> extends RequestContext<A> {
  /** "Don't touch" values (see `dontTouchStat`) mark fields to leave alone; the engine has refused changes
   * to type, dev, qid, muid and the DMDIR bit. All requested changes must be made, or none. */
  stat: Stat;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * What the server engine serves. Each method handles one 9P request after the engine has checked everything
 * the protocol itself defines (fids, open state, modes, offsets, counts); throw an Error to answer Rerror with
 * its message. Permission checks belong to the FileServer, which alone knows owners and modes (see
 * `permits`). Handlers run concurrently; a slow or blocking one never holds up other requests.
 */
export interface FileServer<A = unknown> {
  /** Set `req.fid.aux` to the root of the tree `aname` names and return its qid (type QT.DIR). */
  attach(req: AttachRequest<A>): MaybePromise<Qid>;
  /**
   * Walk `names` from `req.fid` and return the qids of the names walked, in order. Throw if the first name
   * cannot be walked; stop early (returning fewer qids) if a later one cannot.
   */
  walk(req: WalkRequest<A>): MaybePromise<Qid[]>;
  open(req: OpenRequest<A>): MaybePromise<OpenResult | undefined>;
  /** Missing: Tcreate answers "create prohibited". `req.fid` is an unopened directory; on success set its
   * `aux` to the new file. */
  create?(req: CreateRequest<A>): MaybePromise<CreateResult>;
  /** Read a file (not a directory). Return at most `count` bytes; an empty result means end of file. */
  read(req: ReadRequest<A>): MaybePromise<Uint8Array>;
  /**
   * The entries of an open directory, listed at offset 0 of each directory read. The engine packs whole
   * entries into Rreads and keeps this snapshot for the fid, so a listing stays consistent while it is read.
   */
  readdir(req: RequestContext<A>): MaybePromise<Stat[]>;
  /** Missing: Twrite answers "write prohibited". Return the number of bytes accepted. */
  write?(req: WriteRequest<A>): MaybePromise<number>;
  /** Missing: Tremove answers "remove prohibited". The fid is clunked whatever happens. */
  remove?(req: RequestContext<A>): MaybePromise<void>;
  stat(req: RequestContext<A>): MaybePromise<Stat>;
  /** Missing: Twstat answers "wstat prohibited". */
  wstat?(req: WstatRequest<A>): MaybePromise<void>;
  /**
   * Tclunk of an open fid, before the reply: finish what the open started (for example, act on what was
   * written). Throw to answer the Tclunk with Rerror; the fid is clunked either way.
   */
  close?(req: RequestContext<A>): MaybePromise<void>;
  /**
   * Release a fid's state. Called once per fid that attach, walk or create produced, after the client clunked
   * or removed it (or the session ended) and no request still uses it. Must not throw.
   */
  clunk?(fid: Fid<A>): void;
}
