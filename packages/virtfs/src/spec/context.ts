/** What every file handler learns about the open it serves. */
export interface FileContext<S = unknown> {
  /** The user the client attached as. */
  readonly uname: string;
  /** The open mode (OREAD, OWRITE, ORDWR, OEXEC, with OTRUNC or ORCLOSE). */
  readonly mode: number;
  /** This open's private state: whatever `open` returned. */
  readonly state: S;
  /**
   * Fires when this request is flushed (Tflush), the fid is clunked, or the client goes away. A handler
   * that waits must stop when it fires, by throwing `signal.reason`.
   */
  readonly signal: AbortSignal;
  /**
   * The same event for a fraction of the cost: calls `listener` once with the reason (at once if the request
   * was aborted already), and returns a function that removes it. An AbortSignal costs about a kilobyte;
   * a handler that parks requests (a blocking read, which clients pipeline by the thousand) should listen
   * here, or pass the context itself where an AbortSource is taken (`Waiters.wait`, `WatchedValue.changed`).
   */
  onAbort(listener: (reason: unknown) => void): () => void;
}

export interface OpenContext {
  readonly uname: string;
  readonly mode: number;
  /** The open asked for truncation (OTRUNC). */
  readonly truncate: boolean;
  readonly signal: AbortSignal;
}

export interface ReadContext<S = unknown> extends FileContext<S> {
  readonly offset: number;
  /** The most bytes the reply may carry. */
  readonly count: number;
}

export interface WriteContext<S = unknown> extends FileContext<S> {
  readonly offset: number;
  /** A view into the received message: copy it to keep it beyond the call. */
  readonly data: Buffer;
}

/** What a file's `length` learns about the stat it answers. */
export interface StatContext<S = unknown> {
  /** The user the client attached as. */
  readonly uname: string;
  /**
   * When the stat is of an open fid (an fstat), that open's `state`, which is what its reads return;
   * undefined for a fid not open and for a directory listing.
   */
  readonly state: S | undefined;
  /** Fires when the stat (or the listing) is flushed or the client goes away. */
  readonly signal: AbortSignal;
}

/**
 * The behaviour of a file, as closures. Every handler is optional: without `read` the file cannot be read,
 * without `write` it cannot be written. Throw an Error to answer the client with its message.
 */
export interface FileHandlers<S = unknown> {
  /** Runs at each open; what it returns is that open's private `state`. */
  open?(ctx: OpenContext): S | Promise<S>;
  /** Returns up to `count` bytes from `offset`; empty means end of file. May wait (honour the signal). */
  read?(ctx: ReadContext<S>): string | Uint8Array | Promise<string | Uint8Array>;
  /** Takes a write; returns the bytes accepted (all of them if it returns nothing). */
  write?(ctx: WriteContext<S>): number | undefined | Promise<number | undefined>;
  /**
   * Runs once per open, when the client clunks it (a throw then answers the Tclunk with an error) or when
   * the client goes away without clunking (errors are then only reported to the tree's `onError`).
   */
  close?(ctx: FileContext<S>): void | Promise<void>;
  /** The qid version; change it when the content changes (default: counts writes). */
  version?(): number;
  /**
   * The length stat reports: what a read would return now, as far as the file can tell (default 0, as for
   * most synthetic files: it is read to its end whatever stat says). It answers every stat of the file and
   * every listing of its directory (9P2000's listings carry stats), so it must be cheap and not act.
   */
  length?(ctx: StatContext<S>): number | Promise<number>;
}
