import type { PeerIdentity } from "../auth/peer-identity.js";
import type { ServerAuth } from "../auth/server-auth.js";
import type { Dialect } from "../codec/decode.js";
import type { RMessage } from "../codec/types.js";
import type { FidState } from "./fid-state.js";
import type { ServerLimits } from "./limits.js";
import type { PendingRequest } from "./pending-request.js";

export interface ConnectionOptions {
  /** Largest msize this server accepts (the client may ask for less). */
  maxMsize: number;
  limits: ServerLimits;
  /** Require authentication on every attach. */
  auth?: ServerAuth | undefined;
  /** Who the peer is, known before it spoke: attaches are made as it, without Tauth (takes over `auth`). */
  identity?: PeerIdentity | undefined;
  /** The peer as the connection limits name it (ConnectionPeer.key), for messages about the connection. */
  peerKey?: string | undefined;
  /** Receives one line per message in and out. */
  trace?: ((line: string) => void) | undefined;
  /** Receives errors no client can be told of (see ServerOptions.onError). */
  onError?: ((err: Error) => void) | undefined;
}

/**
 * What the request handlers need of their connection: its settings, its tag and fid tables, and the way
 * to answer. Connection is the one implementation; the handlers name it through this interface so the two
 * modules do not need each other.
 */
export interface ConnectionContext<A = unknown> {
  readonly options: ConnectionOptions;
  readonly tags: Map<number, PendingRequest>;
  readonly fids: Map<number, FidState<A>>;
  /** The negotiated message size. */
  readonly msize: number;
  /** The negotiated protocol. */
  readonly dialect: Dialect;
  /** The largest read or write payload a message can carry. */
  readonly maxIo: number;
  /** Who is at the other end, for messages. */
  readonly peer: string;
  /** The client attached: messages may now be as large as the negotiated msize. */
  markAttached(): void;
  respond(req: PendingRequest, reply: RMessage): void;
  respondError(req: PendingRequest, err: unknown): void;
}
