import { join, relative } from "node:path";
import { RequestType } from "vscode-jsonrpc";

/** What a tool asks the broker: one operation on one place of a file (or a workspace). */
export interface BrokerRequest {
  op: "definition" | "references" | "hover" | "diagnostics" | "symbols" | "rename";
  /** The tool's working directory: paths in the answer are relative to it. */
  cwd: string;
  /** Absolute. */
  path?: string;
  /** 1-based, as file_read shows lines. */
  line?: number;
  /** 1-based character of the line. */
  column?: number;
  /** A name to find in the file (on `line`, when given) instead of a column. */
  symbol?: string;
  /** Workspace symbols matching this. */
  query?: string;
  newName?: string;
  apply?: boolean;
  /** At most this many results. */
  limit?: number;
  /** PATH, where the language server's command is looked for. */
  searchPath: string;
}

/** A language server the broker runs. */
export interface ServerStatus {
  language: string;
  root: string;
  pid: number | undefined;
  command: string;
  documents: number;
  idleMs: number;
}

/** The tool-facing answer: the text the model reads. */
export interface BrokerAnswer {
  text: string;
}

export const LSP_REQUEST = new RequestType<BrokerRequest, BrokerAnswer, void>("ollie/lsp");
export const STATUS_REQUEST = new RequestType<Record<string, never>, ServerStatus[], void>("ollie/status");

/** The broker's socket: in the agent's TMPDIR, where only its own tools can reach. */
export function socketPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.TMPDIR || "/tmp", "ollie-lsp.sock");
}

/**
 * The address to bind or connect: the socket path, or — when it is longer than a Unix socket address
 * holds (107 bytes) — its name relative to the working directory, which the caller sets to its directory.
 */
export function socketAddress(path: string): { address: string; chdir?: string } {
  if (Buffer.byteLength(path) <= 100) return { address: path };
  const dir = join(path, "..");
  return { address: relative(dir, path), chdir: dir };
}
