import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
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
  handle(stream: Duplex, options: ListenOptions = {}): Connection<A> | undefined {
    if (this.connections.size >= this.limits.maxConnections) {
      this.refused++;
      this.options.onError?.(
        new Error(
          `connection refused: ${this.limits.maxConnections} connections are open (limits.maxConnections)`,
        ),
      );
      stream.destroy();
      return undefined;
    }
    const conn = new Connection(stream, this.fs, {
      maxMsize: this.maxMsize,
      limits: this.limits,
      auth: options.auth ?? this.options.auth,
      trace: this.options.trace,
      onError: this.options.onError,
    });
    this.connections.add(conn);
    conn.onClose(() => this.connections.delete(conn));
    return conn;
  }

  /** Listens on `unix!PATH`, `tcp!HOST!PORT` or a socket path. */
  async listen(address: Address | string, options: ListenOptions = {}): Promise<Listener> {
    const a = typeof address === "string" ? parseAddress(address) : address;
    const listener = await listen(a, (socket: Socket) => this.handle(socket, options));
    this.listeners.add(listener);
    return listener;
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
    await Promise.all(closing);
  }
}
