import type { RefusalReason } from "./connection-errors.js";
import type { ConnectionPeer } from "./connection-peer.js";
import type { ServerLimits } from "./limits.js";

/** One listener's share of the connections: what is open on it, and what it allows. */
export interface ListenerShare {
  /** The listener's address, for messages (the bound one: a TCP port of 0 becomes the chosen port). */
  name: string;
  /** Connections open on it. */
  connections: number;
  /** Sockets accepted on it whose peer is being identified (not connections yet). */
  identifying: number;
  /** Its own limit (ListenOptions.maxConnections). */
  readonly maxConnections: number;
}

/** A connection's place among the limits, given back when it closes. */
export interface Place {
  release(): void;
}

export interface Refusal {
  reason: RefusalReason;
  detail: string;
}

/**
 * The connection limits of one server: how many connections are open, the owner's among them, and how many
 * each peer and each listener holds. A connection is admitted once its peer is known, and counted until it
 * closes.
 */
export class Admission {
  private open = 0;
  private readonly perPeer = new Map<string, number>();

  constructor(private readonly limits: ServerLimits) {}

  /** A place for a connection from `peer` (undefined: nobody the transport names) on `listener`, or why not. */
  take(peer: ConnectionPeer | undefined, listener?: ListenerShare): Place | Refusal {
    const refusal = this.check(peer, listener);
    if (refusal) return refusal;
    const key = peer?.owner ? undefined : peer?.key;
    this.open++;
    if (listener) listener.connections++;
    if (key !== undefined) this.perPeer.set(key, (this.perPeer.get(key) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.open--;
        if (listener) listener.connections--;
        if (key === undefined) return;
        const left = this.perPeer.get(key)! - 1;
        if (left === 0) this.perPeer.delete(key);
        else this.perPeer.set(key, left);
      },
    };
  }

  private check(peer: ConnectionPeer | undefined, listener: ListenerShare | undefined): Refusal | undefined {
    const { maxConnections, reservedConnections, maxConnectionsPerPeer } = this.limits;
    if (peer?.owner) {
      if (this.open < maxConnections + reservedConnections) return listenerCheck(listener);
      return {
        reason: "server-full",
        detail: `${this.open} connections are open, the owner's reserve too (limits.maxConnections, limits.reservedConnections)`,
      };
    }
    if (this.open >= maxConnections)
      return {
        reason: "server-full",
        detail: `${maxConnections} connections are open (limits.maxConnections)`,
      };
    const listenerFull = listenerCheck(listener);
    if (listenerFull) return listenerFull;
    const held = peer ? (this.perPeer.get(peer.key) ?? 0) : 0;
    if (held >= maxConnectionsPerPeer)
      return {
        reason: "peer-full",
        detail: `it holds ${held} connections (limits.maxConnectionsPerPeer)`,
      };
    return undefined;
  }
}

function listenerCheck(listener: ListenerShare | undefined): Refusal | undefined {
  if (!listener || listener.connections < listener.maxConnections) return undefined;
  return {
    reason: "listener-full",
    detail: `${listener.connections} connections are open on ${listener.name} (its maxConnections)`,
  };
}
