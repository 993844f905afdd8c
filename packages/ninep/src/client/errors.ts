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
