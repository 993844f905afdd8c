import {
  LauncherServiceStoppedError,
  type LimitReached,
  launcherRefusal,
  type SandboxExit,
  type SandboxPolicy,
  startSandboxed,
} from "@ollie/sandbox";
import { AppendBuffer } from "@ollie/virtfs";
import type { CatalogEntry } from "../catalog/tool-catalog.js";
import type { CallTiming } from "./call-timing.js";
import { type RunTrace, startLaunchSpan } from "./launch-span.js";
import { OutputBuffer } from "./output-buffer.js";
import { ToolPolicies } from "./tool-policies.js";

/** A call of a tool: its arguments, and where and with what environment it runs. */
export interface ToolRequest {
  args: Record<string, unknown>;
  cwd: string;
  /** The session's environment; the process gets this, not toolsrv's own. */
  env: Record<string, string>;
}

/** How a run ended. */
export interface ToolOutcome {
  /** The exit status, or null when a signal ended it. */
  exitCode: number | null;
  signal: string | null;
  /** Standard output, within the output limit (see `bytes` and `truncated`). */
  output: string;
  /** The end of standard error, for diagnostics. */
  stderr: string;
  bytes: number;
  truncated: boolean;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** The sandbox launcher refused (policy, exec denied, not found): its `ollie-sandbox: ` line. */
  launcherError?: string;
  /**
   * Why the call got no result, when it got none: an MCP server died or refused the request, or the sandbox
   * launcher service died under the tool. The output ends with it.
   */
  failure?: string;
  /** The resource limits the process reached (a refused fork ends it; see SandboxExit.reached). */
  reached?: LimitReached[];
}

export interface RunOptions {
  /** The policy in force: the tool gets it plus read-and-execute on its directory and on Node's. */
  policy: SandboxPolicy;
  /** Where each tool's policy is kept between calls (default: built for this call alone). */
  policies?: ToolPolicies;
  /** Output kept for the result (default 1 MiB). */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  /** Paths the tool must never reach: the sandbox refuses a policy that would (a ProtectedPathError). */
  protect?: readonly string[];
  /** Paths the tool may read and run but never write: the sandbox refuses a policy that would grant it. */
  protectWrites?: readonly string[];
  /** How long it may run (default: the tool's own timeout); a background run's lifetime. */
  timeoutMs?: number;
  /** Where the run's phases are marked, when timing is on. */
  timing?: CallTiming;
  /** Whose process and memory limits it shares: the agent's uname (see SandboxStartOptions.group). */
  group?: string;
  /** The call's trace, which the run's span joins and whose context the tool gets as TRACEPARENT. */
  trace?: RunTrace;
}

/** A tool process, running or finished. */
export interface ToolRun {
  readonly tool: string;
  readonly pid: number | undefined;
  readonly startedAt: Date;
  /** Everything the process writes to stdout, for readers who follow it (bounded retention). */
  readonly stream: AppendBuffer;
  readonly done: Promise<ToolOutcome>;
  /** Ends the tool and everything it started (SIGTERM, then SIGKILL for all after 500 ms). */
  kill(): void;
}

const STDERR_LIMIT = 16 * 1024;

/** `OLLIE_ARG_<NAME>` for each top-level scalar argument. */
export function argumentEnv(args: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === null || typeof value === "object" || value === undefined) continue;
    env[`OLLIE_ARG_${key.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}`] = String(value);
  }
  return env;
}

/**
 * Starts a tool under the sandbox: the arguments as JSON on stdin (and scalars as OLLIE_ARG_*), in the
 * request's directory with the session's environment. The policy gains
 * read-and-execute on the tool's directory and on Node's installation — nothing else. The tool and all it
 * started, however detached, end at the tool's timeout, when `signal` aborts, by `kill`, and when the tool
 * exits (so nothing it started lingers). Standard output streams into `stream` and a bounded buffer; a
 * non-zero exit is the caller's to report. The run is traced as `sandbox.launch {tool}`, whose context the
 * tool gets as TRACEPARENT (and TRACESTATE), over any its session's environment has.
 */
export async function startTool(
  entry: CatalogEntry,
  request: ToolRequest,
  options: RunOptions,
): Promise<ToolRun> {
  const { timing } = options;
  const policy = (options.policies ?? new ToolPolicies()).for(options.policy, entry);
  const launch = startLaunchSpan(entry.meta.name, options.trace);
  const env = launch.env({ ...request.env, ...argumentEnv(request.args), OLLIE_TOOL: entry.meta.name });
  timing?.mark("policy");
  // The launcher ends everything the tool started when the tool exits, at its timeout, when the signal
  // aborts, or when told to end (SIGTERM, then SIGKILL for all after its grace period).
  let child: Awaited<ReturnType<typeof startSandboxed>>;
  try {
    child = await startSandboxed(entry.file, [], {
      policy,
      cwd: request.cwd,
      env,
      timeoutMs: options.timeoutMs ?? entry.meta.timeoutMs,
      ...(options.signal && { signal: options.signal }),
      ...(options.protect && { protect: options.protect }),
      ...(options.protectWrites && { protectWrites: options.protectWrites }),
      ...(options.group !== undefined && { group: options.group }),
    });
  } catch (error) {
    launch.failed(error);
    throw error;
  }
  launch.started(child.pid);
  timing?.mark("spawn");
  const startedAt = new Date();
  child.stdin.end(`${JSON.stringify(request.args)}\n`);
  const stream = new AppendBuffer({ retain: options.maxOutputBytes ?? 1024 * 1024 });
  const output = new OutputBuffer(options.maxOutputBytes ?? 1024 * 1024);
  const stderr = new OutputBuffer(STDERR_LIMIT);
  const ended = (s: NodeJS.ReadableStream) =>
    new Promise<void>((resolve) => s.once("close", () => resolve()));
  const streams = Promise.all([ended(child.stdout), ended(child.stderr)]);
  child.stdout.on("data", (chunk: Buffer) => {
    output.push(chunk);
    stream.append(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  let killed = false;
  const kill = () => {
    killed = true;
    child.end();
  };
  const done = (async (): Promise<ToolOutcome> => {
    let result: SandboxExit;
    try {
      result = await child.exit;
    } catch (error) {
      launch.failed(error);
      // The launcher service died, and the tool's whole tree with it: what it wrote so far, and why it ended.
      // Its pipes are not waited for: no process is left to close them, and none must hold the call.
      child.stdout.destroy();
      child.stderr.destroy();
      stream.close();
      return stoppedOutcome(entry.meta.name, error, output, stderr, startedAt);
    }
    timing?.mark("run");
    await streams;
    timing?.mark("drain");
    stream.close();
    const errText = stderr.text();
    const outcome: ToolOutcome = {
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      output: output.text(),
      stderr: errText,
      bytes: output.total,
      truncated: output.truncated,
      timedOut: result.timedOut,
      cancelled: result.aborted || killed,
      durationMs: Date.now() - startedAt.getTime(),
    };
    const refusal = launcherRefusal(result.exitCode, errText);
    if (refusal !== undefined) outcome.launcherError = `ollie-sandbox: ${refusal}`;
    launch.exited(result, outcome.cancelled, refusal);
    if (result.reached.length > 0) outcome.reached = result.reached;
    return outcome;
  })();
  return { tool: entry.meta.name, pid: child.pid, startedAt, stream, done, kill };
}

/**
 * The outcome of a run whose launcher service died under it (see LauncherServiceStoppedError): no exit status
 * of its own, and a failure that says what happened and that the next call works again.
 */
function stoppedOutcome(
  tool: string,
  error: unknown,
  output: OutputBuffer,
  stderr: OutputBuffer,
  startedAt: Date,
): ToolOutcome {
  const why =
    error instanceof LauncherServiceStoppedError
      ? `the sandbox launcher service stopped during this call (${error.why}), ending ${tool} and every process it started; the next call starts a new service`
      : `its sandbox failed during this call: ${(error as Error).message}`;
  const failure = `${tool} did not finish: ${why}`;
  const text = output.text();
  return {
    exitCode: null,
    signal: null,
    output: `${text}${text && !text.endsWith("\n") ? "\n" : ""}[${failure}]\n`,
    stderr: stderr.text(),
    bytes: output.total,
    truncated: output.truncated,
    timedOut: false,
    cancelled: false,
    durationMs: Date.now() - startedAt.getTime(),
    failure,
  };
}
