import { existsSync } from "node:fs";
import { execa, type Result } from "execa";
import { ProcessTreeMark } from "./process-tree.js";

/** How long the pipes may stay open after the command has ended and its processes were killed. */
const PIPE_GRACE_MS = 200;

export interface ShellRunOptions {
  cwd?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** What the command reads on stdin (nothing when absent). */
  input?: string;
  maxBuffer?: number;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export interface ShellRun {
  result: Result;
  /** Why the group was killed before the command ended on its own. */
  stopped?: "timeout" | "abort";
}

/**
 * Runs `command` through the shell in a process group of its own, with only `env`. Everything it starts ends
 * with it, however it detached (`setsid`, a double fork, daemon(3)): when the shell exits, at the timeout,
 * or when `signal` aborts, its group and every process carrying its mark (see ProcessTreeMark) are killed,
 * and it resolves once they have ended. Should something still hold its pipes, they are let go of shortly
 * after, with what was read so far.
 */
export async function runShellInGroup(command: string, o: ShellRunOptions): Promise<ShellRun> {
  const tree = new ProcessTreeMark();
  const child = execa(command, {
    shell: true,
    detached: true,
    cwd: o.cwd,
    env: { ...o.env, ...tree.env },
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    ...(o.input === undefined ? { stdin: "ignore" as const } : { input: o.input }),
    ...(o.maxBuffer !== undefined && { maxBuffer: o.maxBuffer }),
  });
  let stopped: ShellRun["stopped"];
  let letGo: NodeJS.Timeout | undefined;
  /** The sweeps begun so far: the run is over once what they killed has ended. */
  let swept = Promise.resolve();
  const end = () => {
    // Linux hands out no pid still naming a process group. So once the shell is reaped, a process holding
    // its pid means the group is gone and the pid was given to a stranger, whose group this must not kill.
    const reaped = child.exitCode !== null || child.signalCode !== null;
    const recycled = reaped && child.pid !== undefined && existsSync(`/proc/${child.pid}`);
    try {
      if (child.pid !== undefined && !recycled) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is already gone.
    }
    const sweep = tree.sweep(child.pid);
    swept = swept.then(() => sweep);
    letGo ??= setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, PIPE_GRACE_MS);
  };
  const stop = (why: "timeout" | "abort") => {
    stopped ??= why;
    end();
  };
  child.on("exit", end);
  const timer = setTimeout(() => stop("timeout"), o.timeoutMs);
  const onAbort = () => stop("abort");
  o.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await child;
    await swept;
    return { result, ...(stopped && { stopped }) };
  } finally {
    clearTimeout(timer);
    clearTimeout(letGo);
    o.signal?.removeEventListener("abort", onAbort);
  }
}
