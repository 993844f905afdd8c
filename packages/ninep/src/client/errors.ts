import type { Dialect } from "../codec/decode.js";
import type { MessageType } from "../codec/types.js";

/** The server answered a request with Rerror. `ename` is its text exactly; `message` adds what was asked. */
export class NinepRemoteError extends Error {
  override readonly name = "NinepRemoteError";
  constructor(
    readonly ename: string,
    readonly request: MessageType,
    readonly path?: string,
    /** In 9P2000.L, the Linux errno of the server's Rlerror (`ename` is its words). */
    readonly errno?: number,
  ) {
    super(path === undefined ? ename : `${path}: ${ename}`);
  }
}

/** The connection ended (or broke the protocol) before the reply arrived. */
export class ConnectionClosedError extends Error {
  override readonly name = "ConnectionClosedError";
}

/** Adds the path an operation was about to an error from a lower layer. */
export function withPath(err: unknown, path: string): unknown {
  if (err instanceof NinepRemoteError && err.path === undefined) {
    return new NinepRemoteError(err.ename, err.request, path, err.errno);
  }
  return err;
}

/**
 * The server refused the dialect the client asked for: it answered a Tversion of 9P2000 with 9P2000.L's
 * Rlerror (a server that speaks only 9P2000.L, as diod does), or with a version it does not share. `other`
 * is the dialect worth asking for instead.
 */
export class DialectRefusedError extends Error {
  override readonly name = "DialectRefusedError";
  readonly other: Dialect;
  constructor(
    readonly asked: Dialect,
    /** What the server answered, in words. */
    readonly answer: string,
    options?: { cause?: unknown },
  ) {
    const other: Dialect = asked === "9P2000" ? "9P2000.L" : "9P2000";
    super(`the server refused ${asked} (${answer}): it may speak only ${other}`, options);
    this.other = other;
  }
}
