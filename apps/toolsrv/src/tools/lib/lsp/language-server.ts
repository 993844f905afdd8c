import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execa, type ResultPromise } from "execa";
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node";
import {
  type Diagnostic,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  type InitializeParams,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
} from "vscode-languageserver-protocol";
import { ToolError } from "../tool-io.js";
import { clientCapabilities } from "./client-capabilities.js";
import { type LanguageServerSpec, languageId } from "./language-servers.js";

/** How long a server has to start and answer `initialize`. */
const START_MS = 60_000;
/** How long one request may take (a first request waits for the project to load). */
export const REQUEST_MS = 45_000;
const STDERR_KEEP = 4096;

interface OpenDocument {
  version: number;
  text: string;
  mtimeMs: number;
  size: number;
}

interface Published {
  diagnostics: Diagnostic[];
  /** The broker-wide count of publishes when this one came: later than a sync's mark means newer. */
  seq: number;
}

/**
 * One language server process for one workspace root, spoken to over LSP with vscode-jsonrpc. Documents are
 * opened from disk on first use and changed (whole text) whenever the file on disk differs from what the
 * server last saw, so an edit between calls is seen. Operations on a server run one at a time.
 */
export class LanguageServer {
  readonly documents = new Map<string, OpenDocument>();
  private readonly published = new Map<string, Published>();
  private seq = 0;
  private readonly publishWaiters = new Set<() => void>();
  private stderr = "";
  private queue: Promise<unknown> = Promise.resolve();
  lastUsed = Date.now();
  /** Being shut down for idleness: what comes now goes to a new server. */
  retiring = false;
  /** Operations queued or running: a server with any is not idle, however long they take. */
  pending = 0;
  /** Set when the process has ended: what to tell the caller. */
  ended: string | undefined;
  readonly exited: Promise<void>;

  private constructor(
    readonly spec: LanguageServerSpec,
    readonly root: string,
    readonly command: string,
    private readonly child: ResultPromise,
    readonly connection: MessageConnection,
  ) {
    // A server that dies leaves its standard input broken: the write fails (EPIPE), and the exit says why.
    child.stdin?.on("error", () => {});
    child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEEP);
    });
    this.exited = child.then((r) => {
      this.ended = `${spec.command} exited (${r.signal ? `killed by ${r.signal}` : `status ${r.exitCode}`})`;
      connection.dispose();
      for (const wake of this.publishWaiters) wake();
    });
    connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      this.published.set(p.uri, { diagnostics: p.diagnostics, seq: ++this.seq });
      for (const wake of this.publishWaiters) wake();
    });
    // What servers ask of their client: answered so that they go on (configuration they have defaults for,
    // progress tokens, capability registrations); edits they would apply themselves are refused.
    connection.onRequest("workspace/configuration", (p: { items?: unknown[] }) =>
      (p.items ?? []).map(() => null),
    );
    connection.onRequest("window/workDoneProgress/create", () => null);
    connection.onRequest("client/registerCapability", () => null);
    connection.onRequest("client/unregisterCapability", () => null);
    connection.onRequest("workspace/applyEdit", () => ({
      applied: false,
      failureReason: "read-only client",
    }));
    connection.onRequest("window/showMessageRequest", () => null);
    connection.onRequest("workspace/workspaceFolders", () => [
      { uri: pathToFileURL(root).href, name: basename(root) },
    ]);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The end of what the server wrote on standard error. */
  stderrTail(lines = 15): string {
    return this.stderr.trimEnd().split("\n").slice(-lines).join("\n");
  }

  /** Starts `command` in `root` and initializes it; a ToolError with its stderr tail if it cannot. */
  static async start(spec: LanguageServerSpec, root: string, command: string): Promise<LanguageServer> {
    const child = execa(command, [...spec.args], {
      cwd: root,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      buffer: false,
      reject: false,
    });
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    const server = new LanguageServer(spec, root, command, child, connection);
    connection.listen();
    const params: InitializeParams = {
      processId: process.pid,
      clientInfo: { name: "ollie" },
      rootUri: pathToFileURL(root).href,
      rootPath: root,
      workspaceFolders: [{ uri: pathToFileURL(root).href, name: basename(root) }],
      capabilities: clientCapabilities,
      ...(spec.initializationOptions !== undefined && { initializationOptions: spec.initializationOptions }),
    };
    try {
      await server.bounded(connection.sendRequest(InitializeRequest.type, params), START_MS, "start");
      await connection.sendNotification(InitializedNotification.type, {});
    } catch (error) {
      child.kill("SIGKILL");
      await server.exited;
      const tail = server.stderrTail();
      throw new ToolError(
        `${spec.command} failed to start in ${root}: ${(error as Error).message}${tail ? `\n${tail}` : ""}`,
      );
    }
    return server;
  }

  /** Runs `body` when the operations before it are done (so syncs and their requests do not interleave). */
  exclusive<T>(body: () => Promise<T>): Promise<T> {
    const run = this.queue.then(body, body);
    this.queue = run.catch(() => undefined);
    this.lastUsed = Date.now();
    this.pending++;
    return run.finally(() => {
      this.pending--;
      this.lastUsed = Date.now();
    });
  }

  /** A request, failed after `ms` or when the server ends, with its stderr tail. */
  request<R>(method: string, params: unknown, ms = REQUEST_MS): Promise<R> {
    return this.bounded(this.connection.sendRequest(method, params) as Promise<R>, ms, method);
  }

  private bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ToolError(`${this.spec.command} did not answer ${what} within ${ms / 1000} s`)),
        ms,
      );
    });
    const ended = this.exited.then(() => {
      const tail = this.stderrTail();
      throw new ToolError(`${this.ended} during ${what}${tail ? `\n${tail}` : ""}`);
    });
    return Promise.race([promise, timeout, ended]).finally(() => clearTimeout(timer));
  }

  /**
   * Makes the server see `file` as it is on disk: opens it, or sends its whole new text when it changed.
   * Returns the publish mark to wait for diagnostics after, and whether anything was sent.
   */
  async sync(file: string): Promise<{ uri: string; text: string; changed: boolean }> {
    const uri = pathToFileURL(file).href;
    const info = await stat(file).catch(() => {
      throw new ToolError(`${file}: no such file`);
    });
    const known = this.documents.get(uri);
    if (known && known.mtimeMs === info.mtimeMs && known.size === info.size)
      return { uri, text: known.text, changed: false };
    const text = await readFile(file, "utf8");
    if (known && known.text === text) {
      known.mtimeMs = info.mtimeMs;
      return { uri, text, changed: false };
    }
    if (!known) {
      this.documents.set(uri, { version: 1, text, mtimeMs: info.mtimeMs, size: info.size });
      await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId: languageId(this.spec, file), version: 1, text },
      });
    } else {
      Object.assign(known, { version: known.version + 1, text, mtimeMs: info.mtimeMs, size: info.size });
      await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version: known.version },
        contentChanges: [{ text }],
      });
    }
    return { uri, text, changed: true };
  }

  /** Syncs every open document with the disk (edits made since by other tools); true if any changed. */
  async syncAll(): Promise<boolean> {
    let changed = false;
    for (const uri of [...this.documents.keys()]) {
      const r = await this.sync(fileURLToPath(uri)).catch(() => undefined);
      if (r?.changed) changed = true;
    }
    return changed;
  }

  /** The publish count now: diagnostics published after it are newer than what was synced. */
  mark(): number {
    return this.seq;
  }

  /**
   * The diagnostics of `uri` the server publishes after `mark`, once its publishes have settled (servers
   * publish in parts: TypeScript sends syntax, then semantic, then suggestion diagnostics); the last ones known
   * and `stale` after `ms` without any.
   */
  async diagnostics(
    uri: string,
    mark: number,
    ms: number,
    settleMs = 600,
  ): Promise<{ diagnostics: Diagnostic[]; stale: boolean }> {
    const deadline = Date.now() + ms;
    const fresh = () => (this.published.get(uri)?.seq ?? -1) > mark;
    while (!fresh() && Date.now() < deadline && !this.ended) await this.nextPublish(deadline - Date.now());
    if (!fresh()) return { diagnostics: this.published.get(uri)?.diagnostics ?? [], stale: true };
    // Settled: no further publish for this document within settleMs (or the deadline).
    let seen = this.published.get(uri)?.seq;
    let quietSince = Date.now();
    while (Date.now() < deadline && !this.ended) {
      const left = settleMs - (Date.now() - quietSince);
      if (left <= 0) break;
      await this.nextPublish(Math.min(left, deadline - Date.now()));
      const now = this.published.get(uri)?.seq;
      if (now !== seen) {
        seen = now;
        quietSince = Date.now();
      }
    }
    return { diagnostics: this.published.get(uri)?.diagnostics ?? [], stale: false };
  }

  private nextPublish(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.publishWaiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      this.publishWaiters.add(wake);
    });
  }

  /** Asks the server to shut down and exit; kills it if it has not within `ms`. */
  async shutdown(ms = 3000): Promise<void> {
    if (this.ended) return;
    const killer = setTimeout(() => this.child.kill("SIGKILL"), ms);
    try {
      await this.bounded(this.connection.sendRequest(ShutdownRequest.type), ms, "shutdown");
      await this.connection.sendNotification(ExitNotification.type);
    } catch {
      this.child.kill("SIGKILL");
    }
    await this.exited;
    clearTimeout(killer);
  }
}
