import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Progress,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { SandboxExit } from "@ollie/sandbox";
import { WatchedValue } from "@ollie/virtfs";
import { limitThatStopped } from "../exec/limit-stop.js";
import { OutputBuffer } from "../exec/output-buffer.js";
import type { McpServerConfig } from "./mcp-config.js";
import { listTools, type ToolListing } from "./mcp-tool-list.js";
import { type OpenedTransport, openTransport, type TransportContext } from "./mcp-transport.js";

/**
 * `starting` (the first attempt), `ready`, `restarting` (it died, or an attempt failed, and the next one
 * waits out its backoff), `broken` (it has never answered, or its last attempt failed; retried with
 * backoff), `stopped`.
 */
export type LinkState = "starting" | "ready" | "restarting" | "broken" | "stopped";

/** What every server's link shares: toolsrv's sandbox, where servers live, and who to tell of changes. */
export interface LinkContext extends TransportContext {
  /** Who we are, in MCP's initialize. */
  clientInfo: { name: string; version: string };
  log?: (line: string) => void;
  /** Its tools changed (listed after a start, or the server said they changed). */
  onToolsChanged: () => void;
}

export interface McpCallOptions {
  /** Aborts the call: MCP's `notifications/cancelled` goes to the server. */
  signal: AbortSignal;
  onprogress?: (progress: Progress) => void;
}

const STDERR_TAIL = 4 * 1024;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** A server that stayed up this long before it died starts again at the first backoff. */
const STABLE_MS = 30_000;
/** How long a failure's description waits for the process's exit status and the end of its stderr. */
const EXIT_WAIT_MS = 500;

/**
 * One MCP server: started (or connected to) once, its tools listed, restarted with backoff when it dies
 * or fails to start, until closed. Calls wait while it (re)starts and fail at once while it is broken.
 */
export class McpLink {
  readonly state = new WatchedValue<LinkState>("starting");
  /** Its tools as last listed (kept while it restarts), and those it offered that cannot be used. */
  listing: ToolListing = { tools: [], refused: [] };
  /** Why it is broken or restarting: the last failure, with the end of its standard error. */
  problem: string | undefined;
  /** The sandbox launcher's process, which a stdio server runs under. */
  pid: number | undefined;
  restarts = 0;
  /** Calls under way, and when one last started or ended: how long it has been idle. */
  inFlight = 0;
  lastUsed = Date.now();
  readonly createdAt = Date.now();
  /** Resolves once the first attempt has ended, however. */
  readonly firstAttempt: Promise<void>;
  private client: Client | undefined;
  private stderr = new OutputBuffer(STDERR_TAIL);
  private failures = 0;
  private readyAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private attempting: Promise<void> | undefined;
  /** The transport of the attempt under way, which close() must end too. */
  private opening: OpenedTransport | undefined;
  private exit: Promise<SandboxExit> | undefined;
  /** Why the transport ended the server itself (a message too big to take), if it did. */
  private endReason: (() => string | undefined) | undefined;
  /** The description of the last end, while it is being made. */
  private ending: Promise<string> | undefined;

  constructor(
    readonly config: McpServerConfig,
    private readonly context: LinkContext,
    /** The agent whose own server this is; none for a shared one. */
    readonly agent?: string,
  ) {
    this.firstAttempt = this.attempt();
  }

  get name(): string {
    return this.config.name;
  }

  get tools(): Tool[] {
    return this.listing.tools;
  }

  private get stopped(): boolean {
    return this.state.get() === "stopped";
  }

  /** The end of what the server wrote to standard error. */
  stderrTail(): string {
    return this.stderr.text();
  }

  async call(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    this.inFlight++;
    this.lastUsed = Date.now();
    try {
      try {
        return await this.callOnce(tool, args, options);
      } catch (error) {
        // An HTTP server that no longer knows the session did not run the call: once more, on a new session.
        if (!this.sessionLost(error) || !unknownSession(error)) throw error;
        return await this.callOnce(tool, args, options);
      }
    } catch (error) {
      throw await this.explain(error);
    } finally {
      this.inFlight--;
      this.lastUsed = Date.now();
    }
  }

  /** Stops the server for good, and waits for an attempt under way to end. */
  async close(): Promise<void> {
    this.state.set("stopped");
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await Promise.all([
      client?.close().catch(() => undefined),
      this.opening?.transport.close().catch(() => undefined),
    ]);
    await this.attempting;
  }

  private async callOnce(
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    const client = await this.whenReady(options.signal);
    const result = await client.callTool({ name: tool, arguments: args }, undefined, {
      signal: options.signal,
      // The caller's signal carries the tool's timeout; the SDK's own (60 s) must not cut it shorter.
      timeout: 2 ** 31 - 1,
      ...(options.onprogress && { onprogress: options.onprogress }),
    });
    return result as CallToolResult;
  }

  /** A call the server's end cut off says how it ended. */
  private async explain(error: unknown): Promise<unknown> {
    const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
    if (!closed || !this.ending) return error;
    return new Error(`the MCP server ${this.name} ended during the call: ${await this.ending}`);
  }

  /** Whether an HTTP server forgot the session or cannot be reached; if so, it is connected to again. */
  private sessionLost(error: unknown): boolean {
    if (this.config.kind !== "http") return false;
    const lost =
      (error instanceof StreamableHTTPError && (error.code === 404 || error.code === 400)) ||
      (error instanceof TypeError && /fetch failed/.test(error.message));
    if (lost && this.state.get() === "ready") this.lost(`the connection failed: ${(error as Error).message}`);
    return lost;
  }

  private async whenReady(signal: AbortSignal): Promise<Client> {
    for (;;) {
      const state = this.state.get();
      if (state === "ready" && this.client) return this.client;
      if (state === "broken") throw new Error(`the MCP server ${this.name} is not running: ${this.problem}`);
      if (state === "stopped") throw new Error(`the MCP server ${this.name} was stopped`);
      await this.state.changed(signal);
    }
  }

  private attempt(): Promise<void> {
    this.attempting = this.start().finally(() => {
      this.attempting = undefined;
    });
    return this.attempting;
  }

  private async start(): Promise<void> {
    if (this.stopped) return;
    this.stderr = new OutputBuffer(STDERR_TAIL);
    const client = new Client(this.context.clientInfo, { capabilities: {} });
    let connected = false;
    client.onclose = () => {
      if (connected && this.client === client) this.lost("ended");
    };
    client.onerror = (error) => this.context.log?.(`mcp server ${this.name}: ${error.message}`);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void this.relist(client);
    });
    try {
      const opened = await openTransport(this.config, this.context, (chunk) => this.stderr.push(chunk));
      this.opening = opened;
      this.pid = opened.pid;
      this.exit = opened.exit;
      this.endReason = opened.endReason;
      if (this.stopped) {
        await opened.transport.close();
        return;
      }
      const timeout = this.config.startupTimeoutMs;
      await client.connect(opened.transport, { timeout });
      const listing = await listTools(client, timeout);
      if (this.stopped) {
        await client.close();
        return;
      }
      connected = true;
      this.client = client;
      this.listing = listing;
      this.problem = undefined;
      this.ending = undefined;
      this.readyAt = Date.now();
      this.state.set("ready");
      this.context.onToolsChanged();
    } catch (error) {
      await client.close().catch(() => undefined);
      if (this.stopped) return;
      const problem = await this.describeFailure(`could not start: ${startupError(error)}`);
      if (this.stopped) return;
      this.problem = problem;
      this.context.log?.(`mcp server ${this.name}: ${problem}`);
      this.state.set("broken");
      this.retry();
    } finally {
      this.opening = undefined;
    }
  }

  /** The server died or the connection dropped: start it again after the backoff. */
  private lost(what: string): void {
    if (this.stopped) return;
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
    if (Date.now() - this.readyAt >= STABLE_MS) this.failures = 0;
    const ending = this.describeFailure(what);
    this.ending = ending;
    void ending.then((problem) => {
      if (this.ending === ending) this.problem = problem;
      this.context.log?.(`mcp server ${this.name}: ${problem}; restarting`);
    });
    this.state.set("restarting");
    this.retry();
  }

  private retry(): void {
    const delay = Math.min(FIRST_BACKOFF_MS * 2 ** this.failures, MAX_BACKOFF_MS);
    this.failures++;
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      this.restarts++;
      void this.attempt();
    }, delay);
    this.timer.unref();
  }

  private async relist(client: Client): Promise<void> {
    try {
      this.listing = await listTools(client, this.config.startupTimeoutMs);
      this.context.onToolsChanged();
    } catch (error) {
      this.context.log?.(`mcp server ${this.name}: listing its changed tools: ${(error as Error).message}`);
    }
  }

  /** `what`, with why it was ended, how the process ended (if it has) and the end of its standard error. */
  private async describeFailure(what: string): Promise<string> {
    const exit = this.exit && (await Promise.race([this.exit, settle(EXIT_WAIT_MS)]));
    const ended = this.endReason?.();
    const error = ended ? `: ${ended}` : "";
    const stopped = exit && limitThatStopped(exit);
    const how =
      exit === undefined
        ? ""
        : stopped
          ? `; it was stopped: it reached ${stopped.text}`
          : exit.exitCode !== null
            ? `; it exited with status ${exit.exitCode}`
            : `; it was killed by ${exit.signal}`;
    const tail = this.stderr.text().trim();
    return `${what}${error}${how}${tail ? `; its standard error ends:\n  ${tail.split("\n").slice(-10).join("\n  ")}` : ""}`;
  }
}

/** Why a start failed; for an HTTP server, with the status, and what to do about a refused credential. */
function startupError(error: unknown): string {
  const message = (error as Error).message;
  if (!(error instanceof StreamableHTTPError) || error.code === undefined) return message;
  const credentials =
    error.code === 401 || error.code === 403
      ? " (the server refused the credentials: set them in the entry's headers; OAuth sign-in is not offered)"
      : "";
  return `HTTP ${error.code}${credentials}: ${message}`;
}

/**
 * A refusal for a session the server does not know (it restarted, or dropped it): 404 in the specification,
 * 400 naming the session from servers built on older SDKs. Either way the request was not run.
 */
function unknownSession(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  return error.code === 404 || (error.code === 400 && /session/i.test(error.message));
}

const settle = (ms: number) =>
  new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref());
