import { isIPv4, isIPv6, type Socket } from "node:net";
import type { Duplex } from "node:stream";

/**
 * Who a connection comes from, as the connection limits see it. Connections with one `key` count together
 * against `limits.maxConnectionsPerPeer`; an `owner` is held to no per-peer limit and may go past
 * `limits.maxConnections` by `limits.reservedConnections`, so that however many connections others hold,
 * the owner's still get in.
 */
export interface ConnectionPeer {
  /** Names the peer in the limits and in messages: `uid 1000`, `tcp!192.0.2.7`, `tcp!2001:db8:0:1::/64`. */
  key: string;
  /** The server's owner: only a listener that can tell (a Unix socket's peer uid) should say so. */
  owner?: boolean;
}

/**
 * Tells who is at the other end of an accepted socket, before anything is read from it; a rejection closes
 * the connection unanswered and tells `onError` why.
 */
export type ClassifyPeer = (socket: Socket) => Promise<ConnectionPeer>;

/**
 * What the transport alone tells of a peer: a TCP peer is its address, and an IPv6 address its /64 (one
 * host is commonly given a whole /64, and could pick a new address for every connection). A Unix socket or
 * an in-memory stream names nobody: such connections count against no per-peer limit.
 */
export function transportPeer(stream: Duplex): ConnectionPeer | undefined {
  const address = (stream as Duplex & { remoteAddress?: string }).remoteAddress;
  return address ? { key: `tcp!${addressKey(address)}` } : undefined;
}

/** An IPv4 address as it is (an IPv4-mapped IPv6 one too), an IPv6 address as its /64. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const bare = address.split("%", 1)[0]!;
  if (isIPv4(bare) || !isIPv6(bare)) return bare;
  return `${expandIPv6(bare).slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address, each without leading zeros (`::` and a dotted tail spelled out). */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}
