/**
 * What one server lets its clients hold. Every limit has a default fit for a daemon on a shared machine;
 * `ServerOptions.limits` changes any of them.
 */
export interface ServerLimits {
  /** Connections served at once; a connection past this is closed as it arrives (default 1,024). */
  maxConnections: number;
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
  /** The largest message a connection may send before its first attach (default 64 KiB). */
  maxMessageBeforeAttach: number;
}

export const DEFAULT_LIMITS: Readonly<ServerLimits> = {
  maxConnections: 1024,
  maxQueuedReplyBytes: 16 * 1024 * 1024,
  maxRequestsInFlight: 4096,
  attachDeadlineMs: 30_000,
  maxAuthFids: 4,
  maxNameBytes: 256,
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
