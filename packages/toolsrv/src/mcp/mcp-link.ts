import { mkdir } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  type Progress,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type SandboxExit, type SandboxPolicy, startSandboxed, withLayer } from "@ollie/sandbox";
import { WatchedValue } from "@ollie/virtfs";
import { OutputBuffer } from "../exec/output-buffer.js";
import { NODE_PREFIX } from "../exec/run-tool.js";
import type { McpServerConfig, StdioServerConfig } from "./mcp-config.js";
import { SandboxedStdioTransport } from "./sandboxed-stdio.js";

/**
 * `starting` (the first attempt), `ready`, `restarting` (it died, or an attempt failed, and the next one
 * waits out its backoff), `broken` (it has never answered, or its last attempt failed; retried with
 * backoff), `stopped`.
 */
export type LinkState = "starting" | "ready" | "restarting" | "broken" | "stopped";

/** What every server's link shares: toolsrv's sandbox, and where servers live. */
export interface LinkContext {
  policy: SandboxPolicy;
  protect?: readonly string[];
  /** The environment every stdio server starts with, before its own `env`. */
  env: Record<string, string>;
  /** Where a stdio server without a `cwd` gets a working directory of its own. */
  workDir: string;
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

/**
 * One MCP server: started (or connected to) once, its tools listed, restarted with backoff when it dies
 * or fails to start, until closed. Calls wait while it (re)starts and fail at once while it is broken.
 */
export class McpLink {
  readonly state = new WatchedValue<LinkState>("starting");
  /** Its tools as last listed (kept while it restarts). */
  tools: Tool[] = [];
  /** Why it is broken or restarting: the last failure, with the end of its standard error. */
  problem: string | undefined;
  pid: number | undefined;
  restarts = 0;
  /** Calls under way, and when one last started or ended: how long it has been idle. */
  inFlight = 0;
  lastUsed = Date.now();
  /** Resolves once the first attempt has ended, however. */
  readonly firstAttempt: Promise<void>;
  private client: Client | undefined;
  private stderr = new OutputBuffer(STDERR_TAIL);
  private failures = 0;
  private readyAt = 0;
  private timer: NodeJS.Timeout | undefined;
  /** How the process ended, once it has and its standard error is read to the end. */
  private exit: Promise<SandboxExit> | undefined;

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

  /** The end of what the server wrote to standard error. */
  stderrTail(): string {
    return this.stderr.text();
  }

  async call(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    this.inFlight++;
    this.lastUsed = Date.now();
    try {
      const client = await this.whenReady(options.signal);
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        // The caller's signal carries the tool's timeout; the SDK's own (60 s) must not cut it shorter.
        timeout: 2 ** 31 - 1,
        ...(options.onprogress && { onprogress: options.onprogress }),
      });
      return result as CallToolResult;
    } finally {
      this.inFlight--;
      this.lastUsed = Date.now();
    }
  }

  /** Stops the server for good. */
  async close(): Promise<void> {
    this.state.set("stopped");
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
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

  private async attempt(): Promise<void> {
    if (this.state.get() === "stopped") return;
    this.stderr = new OutputBuffer(STDERR_TAIL);
    const client = new Client(this.context.clientInfo, { capabilities: {} });
    let connected = false;
    client.onclose = () => {
      if (connected && this.client === client) this.lost();
    };
    client.onerror = (error) => this.context.log?.(`mcp server ${this.name}: ${error.message}`);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void this.relist(client);
    });
    try {
      const transport = await this.transport();
      const timeout = this.config.startupTimeoutMs;
      await client.connect(transport, { timeout });
      const tools = await listAll(client, timeout);
      if (this.state.get() === "stopped") {
        await client.close();
        return;
      }
      connected = true;
      this.client = client;
      this.tools = tools;
      this.problem = undefined;
      this.readyAt = Date.now();
      this.state.set("ready");
      this.context.onToolsChanged();
    } catch (error) {
      await client.close().catch(() => undefined);
      if (this.state.get() === "stopped") return;
      this.problem = await this.describeFailure(`could not start: ${startupError(error)}`);
      this.context.log?.(`mcp server ${this.name}: ${this.problem}`);
      this.state.set("broken");
      this.retry();
    }
  }

  /** The server died or the connection dropped: start it again after the backoff. */
  private lost(): void {
    if (this.state.get() === "stopped") return;
    this.client = undefined;
    if (Date.now() - this.readyAt >= STABLE_MS) this.failures = 0;
    void this.describeFailure("ended").then((problem) => {
      this.problem = problem;
      this.context.log?.(`mcp server ${this.name}: ${problem}; restarting`);
    });
    this.state.set("restarting");
    this.retry();
  }

  private retry(): void {
    const delay = Math.min(FIRST_BACKOFF_MS * 2 ** this.failures, MAX_BACKOFF_MS);
    this.failures++;
    this.timer = setTimeout(() => {
      this.restarts++;
      void this.attempt();
    }, delay);
    this.timer.unref();
  }

  private async relist(client: Client): Promise<void> {
    try {
      this.tools = await listAll(client, this.config.startupTimeoutMs);
      this.context.onToolsChanged();
    } catch (error) {
      this.context.log?.(`mcp server ${this.name}: listing its changed tools: ${(error as Error).message}`);
    }
  }

  private async transport(): Promise<Transport> {
    this.pid = undefined;
    this.exit = undefined;
    const config = this.config;
    if (config.kind === "http")
      return new StreamableHTTPClientTransport(config.url, { requestInit: { headers: config.headers } });
    const cwd = config.cwd ?? join(this.context.workDir, config.name);
    if (config.cwd === undefined) await mkdir(cwd, { recursive: true, mode: 0o700 });
    const child = await startSandboxed(config.command, config.args, {
      policy: serverPolicy(config, this.context.policy),
      cwd,
      env: { ...this.context.env, ...config.env },
      ...(this.context.protect && { protect: this.context.protect }),
    });
    child.stderr.on("data", (chunk: Buffer) => this.stderr.push(chunk));
    this.pid = child.pid;
    const stderrRead = new Promise((resolve) => child.stderr.once("close", resolve));
    this.exit = Promise.all([child.exit, stderrRead]).then(([exit]) => exit);
    return new SandboxedStdioTransport(child, `the MCP server ${config.name}`);
  }

  /** `what`, with how the process ended (if it has) and the end of its standard error. */
  private async describeFailure(what: string): Promise<string> {
    const exit = this.exit && (await Promise.race([this.exit, settle(500)]));
    const how =
      exit === undefined
        ? ""
        : exit.exitCode !== null
          ? `; it exited with status ${exit.exitCode}`
          : `; it was killed by ${exit.signal}`;
    const tail = this.stderr.text().trim();
    return `${what}${how}${tail ? `; its standard error ends:\n  ${tail.split("\n").slice(-10).join("\n  ")}` : ""}`;
  }
}

/** toolsrv's policy, with read-and-execute on Node and on the command's own directory, then the server's layer. */
function serverPolicy(config: StdioServerConfig, policy: SandboxPolicy): SandboxPolicy {
  const rox = [NODE_PREFIX, ...(isAbsolute(config.command) ? [dirname(config.command)] : [])];
  const base = withLayer(policy, { filesystem: { rox } }, `mcp server ${config.name}`);
  return config.sandbox ? withLayer(base, config.sandbox, `${config.source}.sandbox`) : base;
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

/** Every page of the server's tools. */
async function listAll(client: Client, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

const settle = (ms: number) =>
  new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref());
