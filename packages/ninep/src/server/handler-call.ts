import { QT } from "../codec/constants.js";
import { Errno } from "../codec/linux/constants.js";
import type { FidState } from "./fid-state.js";
import { refuse } from "./ninep-error.js";
import type { AbortListener, PendingRequest } from "./pending-request.js";

export function isDir(f: FidState<unknown>): boolean {
  return (f.qid.type & QT.DIR) !== 0;
}

export function checkName(name: string): void {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw refuse(`bad file name '${name}'`, Errno.EINVAL);
  }
}

const REQUEST = Symbol("request");

/**
 * What a FileServer handler receives. The signal is made only when the handler reads it: most requests
 * finish without anyone looking, and an AbortController costs more than the rest of a small read (a
 * handler that waits can listen with `onAbort` instead).
 */
class HandlerCall<A> {
  private readonly [REQUEST]: PendingRequest;
  constructor(
    req: PendingRequest,
    readonly fid: FidState<A>,
  ) {
    this[REQUEST] = req;
  }
  get signal(): AbortSignal {
    return this[REQUEST].signal;
  }
  onAbort(listener: AbortListener): () => void {
    return this[REQUEST].onAbort(listener);
  }
}

/** Starts a FileServer call with `fields`; a request already flushed goes no further. */
export function call<A, T extends object>(
  req: PendingRequest,
  fid: FidState<A>,
  fields?: T,
): HandlerCall<A> & T {
  req.throwIfAborted();
  const c = new HandlerCall(req, fid);
  return (fields ? Object.assign(c, fields) : c) as HandlerCall<A> & T;
}

/** The request's signal, for a call that takes one directly; a request already flushed goes no further. */
export function live(req: PendingRequest): AbortSignal {
  req.throwIfAborted();
  return req.signal;
}
