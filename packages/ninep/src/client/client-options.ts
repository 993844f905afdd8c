import { IOHDRSZ } from "../codec/constants.js";
import type { Dialect } from "../codec/decode.js";
import type { Authenticator } from "./authenticator.js";

export const DEFAULT_CLIENT_MSIZE = 64 * 1024 + IOHDRSZ;

export interface ClientOptions {
  /** msize to ask for (default 64 KiB + 24); the server may grant less. */
  msize?: number;
  /** Receives one line per 9P message in and out. */
  trace?: (line: string) => void;
  /**
   * The protocol to ask for (default 9P2000). A server that answers 9P2000.L with 9P2000 is spoken to in
   * 9P2000: `dialect` says which was settled.
   */
  dialect?: Dialect;
}

export interface AttachOptions {
  uname: string;
  aname?: string;
  /** Proves the uname through Tauth before attaching; skipped when the server needs no authentication. */
  authenticator?: Authenticator;
  /** In 9P2000.L, the user's numeric id (default: none, the server goes by `uname`). */
  nUname?: number;
  signal?: AbortSignal;
}
