import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { IdentifyPeer, PeerIdentity } from "../auth/peer-identity.js";
import type { ServerAuth } from "../auth/server-auth.js";
import { type Address, parseAddress } from "../transport/address.js";
import { type Listener, listen } from "../transport/listen.js";
import { Connection } from "./connection.js";
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
   * Receives what cannot be told to a client: why a connection was dropped for breaking the protocol, or an
   * exception thrown by `FileServer.clunk`. The server goes on either way.
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
}

/** How one connection is served: `auth` as in ListenOptions, or an `identity` already established. */
export interface StreamOptions {
  auth?: ServerAuth;
  identity?: PeerIdentity;
}

export interface ServerStats {
  connections: number;
  /** Connections closed on arrival because `limits.maxConnections` were open. */
  refusedConnections: number;
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
  /** Connections closed on arrival because `maxConnections` were open. */
  private refused = 0;
  /** Accepted sockets whose peer is being identified: they count against `maxConnections`. */
  private readonly identifying = new Set<Socket>();

  constructor(
    private readonly fs: FileServer<A>,
    private readonly options: ServerOptions = {},
  ) {
    this.limits = serverLimits(options.limits);
    this.maxMsize = options.maxMsize ?? DEFAULT_MAX_MSIZE;
    if (this.maxMsize < MIN_MSIZE) throw new RangeError(`maxMsize must be at least ${MIN_MSIZE}`);
  }

  /**
   * Serves one already-connected stream (a socket, or one end of an in-memory pair). Past `maxConnections`
   * the stream is closed at once (and `onError` told); undefined is returned then.
   */
  handle(stream: Duplex, options: StreamOptions = {}): Connection<A> | undefined {
    if (this.full(stream)) return undefined;
    const conn = new Connection(stream, this.fs, {
      maxMsize: this.maxMsize,
      limits: this.limits,
      auth: options.auth ?? this.options.auth,
      identity: options.identity,
      trace: this.options.trace,
      onError: this.options.onError,
    });
    this.connections.add(conn);
    conn.onClose(() => this.connections.delete(conn));
    return conn;
  }

  /** Closes a stream that arrives when `maxConnections` are open (or being identified), telling onError. */
  private full(stream: Duplex): boolean {
    if (this.connections.size + this.identifying.size < this.limits.maxConnections) return false;
    this.refused++;
    this.options.onError?.(
      new Error(
        `connection refused: ${this.limits.maxConnections} connections are open (limits.maxConnections)`,
      ),
    );
    stream.destroy();
    return true;
  }

  /** Listens on `unix!PATH`, `tcp!HOST!PORT` or a socket path. */
  async listen(address: Address | string, options: ListenOptions = {}): Promise<Listener> {
    const a = typeof address === "string" ? parseAddress(address) : address;
    const { identify, auth } = options;
    const accept = identify
      ? (socket: Socket) => void this.identifyThenHandle(socket, identify)
      : (socket: Socket) => this.handle(socket, auth ? { auth } : {});
    const listener = await listen(a, accept);
    this.listeners.add(listener);
    return listener;
  }

  private async identifyThenHandle(socket: Socket, identify: IdentifyPeer): Promise<void> {
    if (this.full(socket)) return;
    // Nothing is read until the peer is known; an error meanwhile only ends the socket.
    const ignore = () => {};
    socket.on("error", ignore);
    this.identifying.add(socket);
    let identity: PeerIdentity;
    try {
      identity = await identify(socket);
    } catch (err) {
      this.options.onError?.(new Error(`connection refused: ${(err as Error).message}`, { cause: err }));
      refuse(socket);
      return;
    } finally {
      this.identifying.delete(socket);
      socket.off("error", ignore);
    }
    if (socket.destroyed) return;
    this.handle(socket, { identity });
  }

  stats(): ServerStats {
    const stats = {
      connections: this.connections.size,
      refusedConnections: this.refused,
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

/**
 * Ends a refused connection with a close rather than a reset: what the peer sent already (its Tversion) is
 * read and dropped first, so it reads the end of the stream, not ECONNRESET. One that keeps writing is cut
 * off after a second.
 */
function refuse(socket: Socket): void {
  socket.on("error", () => {});
  socket.resume();
  socket.end();
  setTimeout(() => socket.destroy(), 1000).unref();
}
