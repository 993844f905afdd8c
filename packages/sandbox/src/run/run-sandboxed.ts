import type { Readable } from "node:stream";
import { execa, type ResultPromise } from "execa";
import { type SandboxCommandOptions, sandboxCommand } from "./prepare.js";
import { endSandboxed, killProcessGroup, launcherRefusal } from "./process-group.js";

export interface SandboxRunOptions extends SandboxCommandOptions {
  /** What the command reads: text or bytes, a stream, or nothing (default). */
  stdin?: string | Uint8Array | Readable | "ignore";
  /** End the command and everything it started after this long (SIGTERM, then SIGKILL after 500 ms). */
  timeoutMs?: number;
  /** End the command and everything it started when this aborts. */
  signal?: AbortSignal;
  /** Most bytes kept of each of stdout and stderr (default 64 MiB); the rest is dropped and `truncated` set. */
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
  const prepared = await sandboxCommand(command, args, options);
  options.signal?.throwIfAborted();
  const stdin = options.stdin ?? "ignore";
  const maxBuffer = options.maxBuffer ?? 64 * 1024 * 1024;
  const child: ResultPromise = execa(prepared.file, prepared.args, {
    cwd: prepared.cwd,
    env: prepared.env,
    extendEnv: false,
    detached: true,
    reject: false,
    encoding: "buffer",
    stripFinalNewline: false,
    maxBuffer,
    ...(stdin === "ignore"
      ? { stdin }
      : typeof stdin === "string" || stdin instanceof Uint8Array
        ? { input: stdin }
        : { stdin }),
  });
  let timedOut = false;
  let aborted = false;
  const onAbort = () => {
    aborted = true;
    endSandboxed(child.pid);
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          endSandboxed(child.pid);
        }, options.timeoutMs);
  // Only finds something if the launcher itself was killed outright.
  child.on("exit", () => killProcessGroup(child.pid));
  try {
    const result = await child;
    const stderr = Buffer.from(result.stderr as Uint8Array);
    const exitCode = result.exitCode ?? null;
    const launcherError = launcherRefusal(exitCode, stderr.toString("utf8"));
    return {
      exitCode,
      signal: (result.signal as NodeJS.Signals | undefined) ?? null,
      stdout: Buffer.from(result.stdout as Uint8Array),
      stderr,
      timedOut,
      aborted,
      truncated: Boolean(result.isMaxBuffer),
      ...(launcherError !== undefined && { launcherError }),
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}
