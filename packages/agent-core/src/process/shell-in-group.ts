import { execa, type Result } from "execa";

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
 * Runs `command` through the shell in a process group of its own, with only `env`. At the timeout, or when
 * `signal` aborts, the whole group is killed — what the shell started too, so nothing holds its pipes open.
 */
export async function runShellInGroup(command: string, o: ShellRunOptions): Promise<ShellRun> {
  const child = execa(command, {
    shell: true,
    detached: true,
    cwd: o.cwd,
    env: o.env,
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
    ...(o.input === undefined ? { stdin: "ignore" as const } : { input: o.input }),
    ...(o.maxBuffer !== undefined && { maxBuffer: o.maxBuffer }),
  });
  let stopped: ShellRun["stopped"];
  const killGroup = (why: "timeout" | "abort") => {
    stopped ??= why;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is already gone.
    }
  };
  const timer = setTimeout(() => killGroup("timeout"), o.timeoutMs);
  const onAbort = () => killGroup("abort");
  o.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await child;
    return { result, ...(stopped && { stopped }) };
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
  }
}

/** The last lines of what a command said on stderr, on one line (for an error message). */
export const lastLines = (stderr: string, count = 3): string =>
  stderr.trim().split("\n").slice(-count).join(" / ");
