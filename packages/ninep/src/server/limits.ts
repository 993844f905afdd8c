/**
 * What one server lets its clients hold. Every limit has a default fit for a daemon on a shared machine;
 * `ServerOptions.limits` changes any of them.
 */
export interface ServerLimits {
  /**
   * Connections served at once, on every listener and stream together; a connection past this is closed as
   * it arrives (default 1,024) — unless it is the owner's, which may go past it by `reservedConnections`.
   */
  maxConnections: number;
  /**
   * Connections kept for the owner beyond `maxConnections` (a peer a listener names `owner`, see
   * ConnectionPeer): however many connections others hold, the owner's still get in (default 64).
   */
  reservedConnections: number;
  /**
   * Connections one peer may hold at once — one user on a Unix socket whose listener tells users apart, one
   * TCP address (an IPv6 /64) — unless it is the owner (default 128). Peers nobody names (a Unix socket
   * without `ListenOptions.peer`, a stream) are not counted per peer.
   */
  maxConnectionsPerPeer: number;
  /**
   * Accepted sockets one listener holds while their peer is identified (`ListenOptions.peer` or
   * `identify`); a socket past this is closed at once (default 1,024). Nothing is read from them meanwhile,
   * and they are not connections yet: the other limits apply once the peer is known.
   */
  maxIdentifying: number;
  /**
   * Reply bytes queued for one client before its connection stops reading more requests (default 16 MiB):
   * a client that writes many requests before it reads any reply is served, one that never reads is
   * bounded.
   */
  maxQueuedReplyBytes: number;
  /** Requests in flight on one connection before it stops reading more (default 4,096). */
  maxRequestsInFlight: number;
  /** A connection that has not attached this long after it opened is closed (default 30 s; 0: never). */
  attachDeadlineMs: number;
  /** Authentication fids one connection may hold at once (default 4). */
  maxAuthFids: number;
  /** The longest uname and aname, in bytes (default 256). */
  maxNameBytes: number;
  /**
   * The largest message a connection may send before its Tversion is answered (default 8 KiB; a Tversion
   * is a few dozen bytes). A larger size field ends the connection before the message's body is read.
   */
  maxMessageBeforeVersion: number;
  /** The largest message a connection may send before its first attach (default 64 KiB). */
  maxMessageBeforeAttach: number;
}

export const DEFAULT_LIMITS: Readonly<ServerLimits> = {
  maxConnections: 1024,
  reservedConnections: 64,
  maxConnectionsPerPeer: 128,
  maxIdentifying: 1024,
  maxQueuedReplyBytes: 16 * 1024 * 1024,
  maxRequestsInFlight: 4096,
  attachDeadlineMs: 30_000,
  maxAuthFids: 4,
  maxNameBytes: 256,
  maxMessageBeforeVersion: 8 * 1024,
  maxMessageBeforeAttach: 64 * 1024,
};

/** The limits in force: the defaults with `given` laid over them, each checked. */
export function serverLimits(given: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...DEFAULT_LIMITS, ...given };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(`limits.${key} must be a whole number ≥ 0`);
  }
  return limits;
}
