import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { IdentifyPeer, PeerIdentity } from "../auth/peer-identity.js";
import type { ServerAuth } from "../auth/server-auth.js";
import { type Address, formatAddress, parseAddress } from "../transport/address.js";
import { type Listener, listen } from "../transport/listen.js";
import { Admission, type ListenerShare } from "./admission.js";
import { Connection } from "./connection.js";
import { ConnectionRefusedError, type RefusalReason } from "./connection-errors.js";
import { type ClassifyPeer, type ConnectionPeer, transportPeer } from "./connection-peer.js";
import type { FileServer } from "./file-server.js";
import { type ServerLimits, serverLimits } from "./limits.js";
import { MIN_MSIZE } from "./version.js";

export const DEFAULT_MAX_MSIZE = 1024 * 1024 + 24;

export interface ServerOptions {
  /** Largest msize accepted (default 1 MiB + 24); clients asking more get this. */
  maxMsize?: number;
  /** What clients may hold: connections, queued replies, requests in flight, time to attach… (ServerLimits). */
  limits?: Partial<ServerLimits>;
  /** Require every attach to be authenticated through Tauth (also settable per listener). */
  auth?: ServerAuth;
  /** Receives one line per 9P message in and out, like lib9p's chatty9p. */
  trace?: (line: string) => void;
  /**
   * Receives what cannot be told to a client: a connection refused as it arrived (ConnectionRefusedError),
   * one dropped for breaking the protocol or not attaching in time (ConnectionDroppedError), or an
   * exception thrown by `FileServer.clunk`. The server goes on either way. A flood of connections is a
   * flood of calls: log a few per `peer` and count the rest.
   */
  onError?: (err: Error) => void;
}

export interface ListenOptions {
  /** Overrides the server's `auth` for connections on this listener. */
  auth?: ServerAuth;
  /**
   * Decides who each accepted socket's peer is before anything is read from it; attaches on the connection
   * are then made as that identity, without Tauth (see PeerIdentity). A rejection closes the connection and
   * tells `onError` why. Takes over `auth` on this listener.
   */
  identify?: IdentifyPeer;
  /**
   * Tells who each accepted socket's peer is for the connection limits (ConnectionPeer: per peer, and the
   * owner's reserve), before anything is read from it; a rejection closes the connection and tells
   * `onError` why. Without it a TCP peer is its address and a Unix socket's peer is nobody in particular.
   */
  peer?: ClassifyPeer;
  /** Connections this listener serves at once, past which a new one is closed as it arrives (default: no
   * limit of its own, only the server's). */
  maxConnections?: number;
}

/**
 * How one connection is served: `auth` as in ListenOptions, or an `identity` already established; `peer`
 * for the connection limits (default: a TCP socket's address, else nobody in particular).
 */
export interface StreamOptions {
  auth?: ServerAuth;
  identity?: PeerIdentity;
  peer?: ConnectionPeer;
}

export interface ServerStats {
  connections: number;
  /** Connections closed as they arrived: past a connection limit, or their peer not identified. */
  refusedConnections: number;
  /** Accepted sockets whose peer is being identified (not connections yet). */
  identifying: number;
  fids: number;
  /** Requests received and not yet answered. */
  requests: number;
  /** Reply bytes waiting to be written because clients read slowly. */
  bufferedOutput: number;
}

/**
 * Serves a FileServer over any number of listeners and streams. Each connection is an independent 9P
 * session; requests on it run concurrently and are answered as they finish.
 */
export class NinepServer<A = unknown> {
  private readonly connections = new Set<Connection<A>>();
  private readonly listeners = new Set<Listener>();
  private readonly maxMsize: number;
  readonly limits: ServerLimits;
  private readonly admission: Admission;
  /** Connections closed as they arrived. */
  private refused = 0;
  /** Accepted sockets whose peer is being identified: each listener holds at most `maxIdentifying`. */
  private readonly identifying = new Set<Socket>();

  constructor(
    private readonly fs: FileServer<A>,
    private readonly options: ServerOptions = {},
  ) {
    this.limits = serverLimits(options.limits);
    this.admission = new Admission(this.limits);
    this.maxMsize = options.maxMsize ?? DEFAULT_MAX_MSIZE;
    if (this.maxMsize < MIN_MSIZE) throw new RangeError(`maxMsize must be at least ${MIN_MSIZE}`);
  }

  /**
   * Serves one already-connected stream (a socket, or one end of an in-memory pair). Past a connection
   * limit the stream is closed at once (and `onError` told); undefined is returned then.
   */
  handle(stream: Duplex, options: StreamOptions = {}): Connection<A> | undefined {
    return this.admit(stream, options.peer ?? transportPeer(stream), undefined, options);
  }

  /** Listens on `unix!PATH`, `tcp!HOST!PORT` or a socket path. */
  async listen(address: Address | string, options: ListenOptions = {}): Promise<Listener> {
    const a = typeof address === "string" ? parseAddress(address) : address;
    const share: ListenerShare = {
      name: formatAddress(a),
      connections: 0,
      identifying: 0,
      maxConnections: options.maxConnections ?? Number.POSITIVE_INFINITY,
    };
    const { identify, peer, auth } = options;
    const accept =
      identify || peer
        ? (socket: Socket) => void this.identifyThenAdmit(socket, share, options)
        : (socket: Socket) => this.admit(socket, transportPeer(socket), share, auth ? { auth } : {});
    const listener = await listen(a, accept);
    share.name = formatAddress(listener.boundAddress);
    this.listeners.add(listener);
    return listener;
  }

  /** Serves a stream whose peer is known, if the connection limits allow it; closes it at once if not. */
  private admit(
    stream: Duplex,
    peer: ConnectionPeer | undefined,
    share: ListenerShare | undefined,
    options: StreamOptions,
  ): Connection<A> | undefined {
    const place = this.admission.take(peer, share);
    if ("reason" in place) {
      this.refuse(stream, place.reason, peer, place.detail);
      stream.destroy();
      return undefined;
    }
    const conn = new Connection(stream, this.fs, {
      maxMsize: this.maxMsize,
      limits: this.limits,
      auth: options.auth ?? this.options.auth,
      identity: options.identity,
      peerKey: peer?.key,
      trace: this.options.trace,
      onError: this.options.onError,
    });
    this.connections.add(conn);
    conn.onClose(() => {
      this.connections.delete(conn);
      place.release();
    });
    return conn;
  }

  /**
   * Tells who the peer of an accepted socket is (for the limits, then its 9P identity), reading nothing
   * from it meanwhile, then admits it. At most `maxIdentifying` sockets of one listener wait for that.
   */
  private async identifyThenAdmit(
    socket: Socket,
    share: ListenerShare,
    options: ListenOptions,
  ): Promise<void> {
    if (share.identifying >= this.limits.maxIdentifying) {
      this.refuse(
        socket,
        "identifying-full",
        transportPeer(socket),
        `${share.identifying} connections to ${share.name} are being identified (limits.maxIdentifying)`,
      );
      socket.destroy();
      return;
    }
    // An error meanwhile only ends the socket.
    const ignore = () => {};
    socket.on("error", ignore);
    share.identifying++;
    this.identifying.add(socket);
    let peer: ConnectionPeer | undefined;
    let identity: PeerIdentity | undefined;
    try {
      peer = options.peer ? await options.peer(socket) : transportPeer(socket);
      identity = options.identify ? await options.identify(socket) : undefined;
    } catch (err) {
      this.refuse(socket, "unidentified", peer ?? transportPeer(socket), (err as Error).message, {
        cause: err,
      });
      endGently(socket);
      return;
    } finally {
      share.identifying--;
      this.identifying.delete(socket);
      socket.off("error", ignore);
    }
    if (socket.destroyed) return;
    this.admit(socket, peer, share, identity ? { identity } : options.auth ? { auth: options.auth } : {});
  }

  /** Counts a connection refused as it arrived and tells onError; closing it is the caller's. */
  private refuse(
    stream: Duplex,
    reason: RefusalReason,
    peer: ConnectionPeer | undefined,
    detail: string,
    options?: ErrorOptions,
  ): void {
    this.refused++;
    const who = peer?.key ?? transportName(stream);
    this.options.onError?.(new ConnectionRefusedError(reason, who, detail, options));
  }

  stats(): ServerStats {
    const stats = {
      connections: this.connections.size,
      refusedConnections: this.refused,
      identifying: this.identifying.size,
      fids: 0,
      requests: 0,
      bufferedOutput: 0,
    };
    for (const c of this.connections) {
      stats.fids += c.fids.size;
      stats.requests += c.tags.size;
      stats.bufferedOutput += c.bufferedOutput;
    }
    return stats;
  }

  /** Stops every listener and drops every connection (their requests are aborted, their fids clunked). */
  async close(): Promise<void> {
    const closing = [...this.listeners].map((l) => l.close());
    this.listeners.clear();
    for (const c of this.connections) c.close();
    for (const socket of this.identifying) socket.destroy();
    await Promise.all(closing);
  }
}

/** How a connection whose peer has no key is named: `unix` for a Unix socket, else `stream`. */
function transportName(stream: Duplex): string {
  return "remoteAddress" in stream ? "unix" : "stream";
}

/**
 * Ends a connection refused after its peer was identified with a close rather than a reset: what the peer
 * sent already (its Tversion) is read and dropped first, so it reads the end of the stream, not
 * ECONNRESET. One that keeps writing is cut off after a second.
 */
function endGently(socket: Socket): void {
  socket.on("error", () => {});
  socket.resume();
  socket.end();
  setTimeout(() => socket.destroy(), 1000).unref();
}
