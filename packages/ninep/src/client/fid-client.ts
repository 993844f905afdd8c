import type { Dialect } from "../codec/decode.js";
import type { Qid, Rcreate, Ropen, Rread, Stat } from "../codec/types.js";

/**
 * What files and file systems need of a client: the fid operations, one request each. NinepClient is the
 * one implementation; `Fsys` and `File` name it through this interface, so the client can make them without
 * the modules needing each other.
 */
export interface FidClient {
  /** The largest read or write payload a message can carry. */
  readonly maxIo: number;
  /** The protocol settled with the server. */
  readonly dialect: Dialect;
  /** In 9P2000.L, the entries of a directory open for reading (9P2000 reads them from the directory). */
  readdir(fid: number, signal?: AbortSignal): Promise<Stat[]>;
  walk(fid: number, names: readonly string[], signal?: AbortSignal): Promise<{ fid: number; qids: Qid[] }>;
  open(fid: number, mode: number, signal?: AbortSignal): Promise<Ropen>;
  create(fid: number, name: string, perm: number, mode: number, signal?: AbortSignal): Promise<Rcreate>;
  read(fid: number, offset: bigint, count: number, signal?: AbortSignal): Promise<Rread>;
  write(fid: number, offset: bigint, data: Uint8Array, signal?: AbortSignal): Promise<number>;
  stat(fid: number, signal?: AbortSignal): Promise<Stat>;
  wstat(fid: number, stat: Stat, signal?: AbortSignal): Promise<void>;
  clunk(fid: number): Promise<void>;
  forget(fid: number): void;
  remove(fid: number, signal?: AbortSignal): Promise<void>;
  /** Closes the connection: every pending request fails. */
  close(): void;
}
