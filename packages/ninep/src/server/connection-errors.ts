/**
 * Why a connection was closed as it arrived:
 * - `server-full`: `limits.maxConnections` are open (the owner's may go `reservedConnections` further);
 * - `listener-full`: the listener's own `maxConnections` are open on it;
 * - `peer-full`: the peer holds `limits.maxConnectionsPerPeer`;
 * - `identifying-full`: `limits.maxIdentifying` sockets of the listener wait for their peer to be told;
 * - `unidentified`: telling who the peer is failed, or refused it.
 */
export type RefusalReason =
  | "server-full"
  | "listener-full"
  | "peer-full"
  | "identifying-full"
  | "unidentified";

/**
 * A connection the server closed as it arrived, told to `ServerOptions.onError`. A flood of connections is
 * a flood of these: `peer` (the limits' key, else the transport's name: `unix`, `stream`) is there for a
 * caller to count them by and log a few per peer.
 */
export class ConnectionRefusedError extends Error {
  override readonly name = "ConnectionRefusedError";
  constructor(
    readonly reason: RefusalReason,
    readonly peer: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`refused a connection from ${peer}: ${detail}`, options);
  }
}

/**
 * A connection the server ended because the client broke the protocol (a bad frame, an oversized one) or
 * did not attach in time, told to `ServerOptions.onError`; `peer` as in ConnectionRefusedError, `cause`
 * the ProtocolError when there is one.
 */
export class ConnectionDroppedError extends Error {
  override readonly name = "ConnectionDroppedError";
  constructor(
    readonly peer: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${peer}: ${detail}; connection closed`, options);
  }
}
