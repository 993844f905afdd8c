type MaybePromise<T> = T | Promise<T>;

/**
 * One proof of identity in progress on an auth fid (Tauth's afid). The client reads and writes the afid;
 * Tattach with that afid succeeds only once `verified()` is true.
 */
export interface AuthSession {
  read(count: number, signal: AbortSignal): MaybePromise<Uint8Array>;
  /** Return the bytes accepted; throw to answer the write with an Rerror (for example a wrong proof). */
  write(data: Uint8Array, signal: AbortSignal): MaybePromise<number>;
  /** True once the client has proven it is the uname it named in Tauth. */
  verified(): boolean;
  /** Called when the afid is clunked. */
  close?(): void;
}

/** Makes a listener require authentication: every Tattach must present a verified afid. */
export interface ServerAuth {
  /** Begin a proof for `uname` attaching to `aname`. Throw to refuse at once (Rerror to Tauth). */
  start(uname: string, aname: string): AuthSession;
  /** Told of every attach refused for want of a proof (no afid, or an unverified one): an audit trail. */
  refused?(event: AuthRefusal): void;
}

export interface AuthRefusal {
  uname: string;
  aname: string;
  /** The error the client was sent. */
  reason: string;
  /** The client's address as the transport knows it (`tcp!HOST!PORT`, `unix`, `stream`). */
  peer: string;
}
