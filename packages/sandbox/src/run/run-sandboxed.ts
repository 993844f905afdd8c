import type { Readable } from "node:stream";
import { type LimitReached, limitsReached } from "../limits/limit-reached.js";
import { resolveLimits } from "../limits/resolve-limits.js";
import { resourceGroups } from "../limits/resource-groups.js";
import { endSandboxed } from "./end-sandboxed.js";
import { launcherRefusal } from "./launcher-refusal.js";
import { launcherService, type ServedCommand } from "./launcher-service.js";
import { prepareCommand, type SandboxCommandOptions } from "./prepare.js";

/** The group of commands a command belongs to when its caller names none. */
const DEFAULT_GROUP = "default";

export interface SandboxStartOptions extends SandboxCommandOptions {
  /** End the command and everything it started after this long (SIGTERM, then SIGKILL after 500 ms). */
  timeoutMs?: number;
  /** End the command and everything it started when this aborts. */
  signal?: AbortSignal;
  /**
   * The group whose process and memory limits (`limits.processes`, `limits.memory`) the command shares: the
   * commands of a group running at the same time count together (toolsrv gives each agent its own). Default:
   * one group for every command of this process that names none.
   */
  group?: string;
}

export interface SandboxRunOptions extends SandboxStartOptions {
  /** What the command reads: text or bytes, a stream, or nothing (default). */
  stdin?: string | Uint8Array | Readable | "ignore";
  /** Most bytes kept of each of stdout and stderr (default 64 MiB); the rest is read, dropped, and `truncated` set. */
  maxBuffer?: number;
}

export interface SandboxResult {
  /** The command's exit status, or null if a signal ended it. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  aborted: boolean;
  /** Output went past `maxBuffer` and was cut. */
  truncated: boolean;
  /**
   * The launcher's own refusal (exit 125 policy, 126 cannot execute, 127 not found), as it said it; undefined
   * when the command itself ran.
   */
  launcherError?: string;
  /** The resource limits it reached (see SandboxExit). */
  reached: LimitReached[];
}

/** How a sandboxed command ended, and whether its timeout, its signal or a resource limit ended it. */
export interface SandboxExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /**
   * The resource limits it reached: `processes` (a fork was refused: the whole tree was ended then),
   * `memory` (the OOM killer killed a process of it), `cpu_time` and `file_size` (their signal ended it).
   * A limit enforced by an rlimit that a process ran into without dying of it (an allocation or a write that
   * failed) is the process's own to report.
   */
  reached: LimitReached[];
}

/** A sandboxed command that is running: its streams, its exit, and `end()`. */
export interface SandboxedProcess extends Omit<ServedCommand, "exit"> {
  /** How it ended; rejects, with a LauncherServiceStoppedError, only if the launcher service itself died. */
  exit: Promise<SandboxExit>;
  /** Ends the command and everything it started (SIGTERM, then SIGKILL for all after 500 ms). */
  end(): void;
}

/**
 * Starts a command under the sandbox and hands back its streams: the same launcher, checks and sandbox as
 * `sandboxCommand` describes, started by a launcher service that stays (a call costs a fork of that small
 * process rather than a fork of Node). Only standard input, output and error reach the command; nothing
 * it starts outlives it, however it detaches: it and its whole tree end when it exits, at `timeoutMs`, when
 * `signal` aborts, at `end()`, or when a fork of it is refused at its group's process limit. Where this
 * process may make cgroups, the command runs in its `group`'s, which hold the group's limits.
 */
export async function startSandboxed(
  command: string,
  args: readonly string[],
  options: SandboxStartOptions,
): Promise<SandboxedProcess> {
  const limits = resolveLimits(options.policy.limits);
  const lease = (await resourceGroups()).enter(options.group ?? DEFAULT_GROUP, limits);
  let served: ServedCommand;
  try {
    const prepared = await prepareCommand(command, args, options, lease);
    served = await launcherService(prepared.file).run(prepared.args, prepared.cwd, prepared.env);
  } catch (error) {
    lease.release();
    throw error;
  }
  served.exit.then(lease.release, lease.release);
  const end = () => endSandboxed(served.pid);
  let timedOut = false;
  let aborted = false;
  const onAbort = () => {
    aborted = true;
    end();
  };
  const { signal, timeoutMs } = options;
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          end();
        }, timeoutMs);
  // Once the command has ended, neither its timeout nor its signal may signal its launcher's pid again.
  const exit = served.exit
    .then(
      ({ exitCode, signal, reported }): SandboxExit => ({
        exitCode,
        signal,
        timedOut,
        aborted,
        reached: limitsReached({ signal, reported }, limits),
      }),
    )
    .finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    });
  return { ...served, exit, end };
}

/** Reads a stream whole, keeping at most `limit` bytes. */
function collect(stream: Readable, limit: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let cut = false;
  stream.on("data", (chunk: Buffer) => {
    const room = limit - kept;
    if (chunk.length > room) cut = true;
    if (room > 0) {
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      kept += Math.min(room, chunk.length);
    }
  });
  return new Promise((resolve) => {
    const done = () => resolve({ bytes: Buffer.concat(chunks), cut });
    stream.once("end", done);
    stream.once("error", done);
  });
}

/**
 * Runs a command under the sandbox and collects its output. Only standard input, output and error reach it.
 * Nothing it started outlives it, however it detached: the launcher ends the whole tree when the command
 * exits, at a timeout, or when `signal` aborts (SIGTERM to the command, then SIGKILL to all after 500 ms).
 */
export async function runSandboxed(
  command: string,
  args: readonly string[],
  options: SandboxRunOptions,
): Promise<SandboxResult> {
  options.signal?.throwIfAborted();
  const child = await startSandboxed(command, args, options);
  const maxBuffer = options.maxBuffer ?? 64 * 1024 * 1024;
  const stdout = collect(child.stdout, maxBuffer);
  const stderr = collect(child.stderr, maxBuffer);
  const input = options.stdin ?? "ignore";
  if (input === "ignore") child.stdin.end();
  else if (typeof input === "string" || input instanceof Uint8Array) child.stdin.end(input);
  else input.pipe(child.stdin);
  try {
    const [exit, out, err] = await Promise.all([child.exit, stdout, stderr]);
    const launcherError = launcherRefusal(exit.exitCode, err.bytes.toString("utf8"));
    return {
      ...exit,
      stdout: out.bytes,
      stderr: err.bytes,
      truncated: out.cut || err.cut,
      ...(launcherError !== undefined && { launcherError }),
    };
  } finally {
    if (typeof input === "object" && !(input instanceof Uint8Array)) input.unpipe(child.stdin);
  }
}
