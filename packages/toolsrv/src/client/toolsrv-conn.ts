import type { ToolExecutor, ToolInfo, ToolResult } from "@ollie/agent-core";
import type { Authenticator, File, Fsys } from "@ollie/ninep";
import { ORDWR, OREAD } from "@ollie/ninep";
import { traceCarrierOf } from "@ollie/telemetry";
import { trace } from "@opentelemetry/api";
import { limitThatStopped } from "../exec/limit-stop.js";
import type { ToolMeta } from "../metadata/tool-meta.js";
import {
  type AgentMcpRequest,
  type AgentMcpStatus,
  DAEMON_UNAME,
  type McpServerEntry,
} from "../protocol/agent-mcp.js";
import type { AgentSandbox } from "../protocol/agent-sandbox.js";
import type { CallResult } from "../protocol/call.js";
import type { ProcessInfo } from "../protocol/process-info.js";
import { callResultAttributes } from "../tracing/call-attributes.js";
import { ToolsrvLink } from "./toolsrv-link.js";

export interface ToolsrvConnOptions {
  /** toolsrv's address, e.g. `unix!/run/user/1000/ns/toolsrv`. */
  address: string;
  /** The agent principal: its loaded tools are its own. */
  uname: string;
  /** The tools to start from (the profile's autoLoad); toolsrv's default set when absent. */
  autoLoad?: readonly string[];
  /** Where the agent's tools run. */
  cwd: string;
  /** The session environment tools get (they never see toolsrv's own). */
  env?: Record<string, string>;
  authenticator?: Authenticator;
  /**
   * The agent's own MCP servers (an editor's, for its session), by name as in mcp.json's `mcpServers`:
   * started for this agent alone, in `cwd` with `env` under its sandbox, their tools (`mcp__SERVER__TOOL`)
   * offered and loaded for it; stopped when this connection closes. Set through toolsrv's `agentmcp` file,
   * attached as DAEMON_UNAME beside the agent, which only the daemon's key may do. A server that cannot
   * start is reported in `mcpStatus`, not thrown.
   */
  mcpServers?: Readonly<Record<string, McpServerEntry>>;
}

/** Slack over a tool's own timeout, so toolsrv's kill (with its clearer message) comes first. */
const TIMEOUT_SLACK_MS = 5000;

/**
 * An agent's connection to toolsrv: lists its loaded tools, reads its revision, and makes calls through the
 * `call` file. When a call's signal aborts, the call's fid is clunked, and toolsrv kills the tool's process
 * group.
 */
export class ToolsrvConn implements ToolExecutor {
  private readonly fsys: Fsys;
  /**
   * A `call` fid opened ahead for the next call, while this one runs: a call then waits for a write and a
   * read, not for a walk and an open too. An unused one holds nothing on toolsrv's side but an open file.
   */
  private spare: Promise<File> | undefined;
  private closing = false;
  /** Cleared when toolsrv refuses a call's `traceparent`: it predates trace context. */
  private sendsTraceContext = true;
  /** The open of `agentmcp` that keeps the agent's own servers running, and what it answered. */
  private own: { file: File; status: AgentMcpStatus } | undefined;

  private constructor(
    private readonly link: ToolsrvLink,
    private readonly options: ToolsrvConnOptions,
  ) {
    this.fsys = link.fsys;
  }

  static async dial(options: ToolsrvConnOptions, signal?: AbortSignal): Promise<ToolsrvConn> {
    let own: ToolsrvConn["own"];
    const link = await ToolsrvLink.dial(options, signal, async (link) => {
      if (options.autoLoad) await link.fsys.writeFile("ctl", `reset ${options.autoLoad.join(" ")}\n`);
      // After the reset, which would drop the servers' tools from the loaded set.
      if (options.mcpServers) own = await setOwnServers(link, options, options.mcpServers, signal);
    });
    const conn = new ToolsrvConn(link, options);
    conn.own = own;
    return conn;
  }

  /**
   * How the agent's own MCP servers stood once their first starts ended (or 10 s passed): each server's
   * state and tools, and what cannot be used. Undefined when none were given.
   */
  get mcpStatus(): AgentMcpStatus | undefined {
    return this.own?.status;
  }

  /**
   * Replaces the agent's own MCP servers (none stops them all): the new ones start, then the old ones stop.
   * Resolves with how the new ones stand.
   */
  async setMcpServers(
    servers: Readonly<Record<string, McpServerEntry>>,
    signal?: AbortSignal,
  ): Promise<AgentMcpStatus> {
    const previous = this.own;
    this.own = await setOwnServers(this.link, this.options, servers, signal);
    await previous?.file.close().catch(() => {});
    return this.own.status;
  }

  /** Resolves when the connection to toolsrv ends, from either side. */
  get closed(): Promise<void> {
    return this.link.closed;
  }

  async list(signal?: AbortSignal): Promise<ToolInfo[]> {
    const metas = JSON.parse((await this.fsys.readFile("loaded", signal)).toString("utf8")) as ToolMeta[];
    return metas.map(describe);
  }

  async revision(signal?: AbortSignal): Promise<number> {
    return Number((await this.fsys.readFile("rev", signal)).toString("utf8").trim());
  }

  /**
   * The sandbox this agent's tools run under, expanded for the directory and environment of its last call
   * (toolsrv's `sandbox` file).
   */
  async sandbox(signal?: AbortSignal): Promise<AgentSandbox> {
    return JSON.parse((await this.fsys.readFile("sandbox", signal)).toString("utf8")) as AgentSandbox;
  }

  /** Loads tools for this agent (what tool_load does). */
  async load(names: readonly string[]): Promise<void> {
    await this.fsys.writeFile("ctl", `load ${names.join(" ")}\n`);
  }

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const result = await this.callRaw({ tool: name, args }, signal);
    // The caller's span of this tool call (agent-core's execute_tool) learns how the process ended.
    const span = trace.getActiveSpan();
    if (span?.isRecording()) span.setAttributes(callResultAttributes(result));
    return { output: modelText(name, result), ...(result.isError && { isError: true }) };
  }

  /**
   * Makes a call and returns toolsrv's whole answer (exit status, stderr, sizes, process id). When a sampled
   * span is active, the call carries it as `traceparent` (and `tracestate`): toolsrv's span of the call and
   * the tool's process join its trace. Without one the call is written exactly as before, which a toolsrv
   * that knows nothing of tracing reads too; a toolsrv that refuses the trace context (one older than it)
   * is sent the call again without it, and no trace context from then on.
   */
  async callRaw(
    request: { tool: string; args: Record<string, unknown>; detach?: boolean },
    signal: AbortSignal,
  ): Promise<CallResult> {
    const call = { ...request, cwd: this.options.cwd, env: this.options.env ?? {} };
    const carrier = this.sendsTraceContext ? traceCarrierOf() : undefined;
    if (!carrier) return this.exchange(call, signal);
    const result = await this.exchange({ ...call, ...carrier }, signal);
    if (!refusedTraceContext(result)) return result;
    // Refused before anything ran: the call is made again, as such a toolsrv reads calls.
    this.sendsTraceContext = false;
    return this.exchange(call, signal);
  }

  /** Writes one call to a `call` fid and reads its result. */
  private async exchange(call: object, signal: AbortSignal): Promise<CallResult> {
    signal.throwIfAborted();
    const file = await this.callFid(signal);
    let closed = false;
    // Not waited for: the result is in hand, and the clunk goes out before anything sent after it.
    const clunk = () => {
      if (closed) return;
      closed = true;
      void file.close().catch(() => {});
    };
    signal.addEventListener("abort", clunk, { once: true });
    try {
      signal.throwIfAborted();
      const body = Buffer.from(JSON.stringify(call));
      const writing = file.write(body);
      // A call that fits in one write goes out with its read: toolsrv's read waits for the write.
      const reading = body.length <= file.chunkSize ? readResult(file) : undefined;
      reading?.catch(() => {}); // if the write fails, that is the error to report
      await writing;
      const answer = await (reading ?? readResult(file));
      // Opened now, while the caller reads this result, rather than beside the call toolsrv is starting.
      this.openAhead();
      return JSON.parse(answer.toString("utf8")) as CallResult;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw error;
    } finally {
      signal.removeEventListener("abort", clunk);
      clunk();
    }
  }

  /** Opens the next call's fid, unless one is open or opening. */
  private openAhead(): void {
    if (this.spare || this.closing) return;
    const next = this.fsys.open("call", ORDWR);
    next.catch(() => {});
    this.spare = next;
  }

  /** A `call` fid for a call: the one opened ahead if it opened, else a new one. */
  private async callFid(signal: AbortSignal): Promise<File> {
    const spare = this.spare;
    this.spare = undefined;
    if (spare) {
      try {
        return await spare;
      } catch {
        // Opened again below, which says why it cannot be.
      }
    }
    return this.fsys.open("call", ORDWR, signal);
  }

  /** This agent's tool processes that toolsrv still knows of (running, or recently finished). */
  async processes(signal?: AbortSignal): Promise<ProcessInfo[]> {
    const entries = await this.fsys.readdir("proc", signal);
    const infos = await Promise.all(
      entries.map(async (e) => {
        try {
          return JSON.parse(
            (await this.fsys.readFile(`proc/${e.name}/info`, signal)).toString("utf8"),
          ) as ProcessInfo;
        } catch {
          return undefined;
        }
      }),
    );
    return infos.filter((p): p is ProcessInfo => p !== undefined && p.agent === this.options.uname);
  }

  /** Kills one of this agent's tool processes (its whole process group). */
  async kill(id: number): Promise<void> {
    await this.fsys.writeFile(`proc/${id}/ctl`, "kill\n");
  }

  /** One of this agent's tool processes as toolsrv describes it now; undefined when it is gone or another's. */
  async process(id: number, signal?: AbortSignal): Promise<ProcessInfo | undefined> {
    try {
      const info = JSON.parse(
        (await this.fsys.readFile(`proc/${id}/info`, signal)).toString("utf8"),
      ) as ProcessInfo;
      return info.agent === this.options.uname ? info : undefined;
    } catch (error) {
      if (signal?.aborted) throw error;
      return undefined;
    }
  }

  /**
   * Opens the output of one of this agent's tool processes (stdout and stderr as they came, from the start):
   * reads at an offset wait for more until the process ends. Close it when done. Rejects when the process is
   * gone or another agent's.
   */
  async openOutput(id: number, signal?: AbortSignal): Promise<File> {
    if (!(await this.process(id, signal))) throw new Error(`no process ${id} of ${this.options.uname}`);
    return this.fsys.open(`proc/${id}/output`, OREAD, signal);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.link.close();
  }
}

/**
 * Sets the agent's own servers through `agentmcp`, attached as the daemon on the link's connection, and
 * keeps that open: the servers run while it lasts.
 */
async function setOwnServers(
  link: ToolsrvLink,
  options: ToolsrvConnOptions,
  servers: Readonly<Record<string, McpServerEntry>>,
  signal?: AbortSignal,
): Promise<{ file: File; status: AgentMcpStatus }> {
  const daemon = await link.attachAs(DAEMON_UNAME, signal);
  const file = await daemon.open("agentmcp", ORDWR, signal);
  try {
    const request: AgentMcpRequest = {
      agent: options.uname,
      cwd: options.cwd,
      env: options.env ?? {},
      mcpServers: { ...servers },
    };
    await file.write(JSON.stringify(request), 0, signal);
    const status = JSON.parse((await readResult(file)).toString("utf8")) as AgentMcpStatus;
    return { file, status };
  } catch (error) {
    await file.close().catch(() => {});
    throw error;
  } finally {
    // The open holds the servers; the attach's root is needed no longer.
    await daemon.close().catch(() => {});
  }
}

/**
 * Whether toolsrv refused a call for its trace context alone: a toolsrv that predates it refuses the unknown
 * keys, before running anything.
 */
const refusedTraceContext = (result: CallResult): boolean =>
  result.isError &&
  result.exitCode === undefined &&
  /^bad call request: (traceparent|tracestate): unknown key/.test(result.output);

/**
 * A call's result: one line of JSON (its newlines are escaped), read until that line's end rather than
 * until a read comes back empty, which would cost one more round trip.
 */
async function readResult(file: File): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const chunk = await file.read(offset);
    if (chunk.length === 0) break;
    parts.push(chunk);
    offset += chunk.length;
    if (chunk[chunk.length - 1] === 0x0a) break;
  }
  return Buffer.concat(parts);
}

function describe(m: ToolMeta): ToolInfo {
  return {
    name: m.name,
    description: m.description,
    parameters: m.parameters,
    readSafe: m.parallelRead,
    timeoutMs: m.timeoutMs + TIMEOUT_SLACK_MS,
    tier: m.tier,
    ...(m.cacheArgument !== undefined && { cache: { pathArgument: m.cacheArgument } }),
  };
}

/**
 * What the model reads of a result: the output, and for a failure, why — status, timeout, the resource limit
 * that stopped it, stderr (a call left without a result has its output say why). A limit a process inside
 * reached without stopping the tool is said too.
 */
function modelText(name: string, r: CallResult): string {
  const stopped = limitThatStopped(r);
  const notes = (r.reached ?? [])
    .filter((l) => l !== stopped)
    .map((l) => `[a process of ${name} was stopped: it reached ${l.text}]`);
  const out = (text: string, lines: string[]) =>
    lines.length === 0 ? text : `${text}${text && !text.endsWith("\n") ? "\n" : ""}${lines.join("\n")}`;
  // A call that got no result of its own (its failure) has its output say why already.
  if (!r.isError || r.exitCode === undefined || r.failure !== undefined) return out(r.output, notes);
  const why = r.timedOut
    ? `${name} was stopped: it ran past its timeout`
    : r.cancelled
      ? `${name} was cancelled`
      : stopped
        ? `${name} was stopped: it reached ${stopped.text}`
        : r.exitCode === null
          ? `${name} was killed by ${r.signal}`
          : `${name} exited with status ${r.exitCode}`;
  const stderr = r.stderr?.trim() ? `\n${r.stderr.trim()}` : "";
  return `${out(r.output, [`[${why}]`, ...notes])}${stderr}`;
}
