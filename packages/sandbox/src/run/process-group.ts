/** The launcher's own exit statuses: 125 policy or launcher failure, 126 cannot execute, 127 not found. */
const LAUNCHER_EXITS = new Set([125, 126, 127]);

/**
 * Ends a sandboxed command and everything it started, however it detached (`setsid`, a double fork,
 * daemon(3)): asks the launcher, which passes SIGTERM on and kills the whole tree after its grace period
 * (500 ms unless `--grace` says otherwise). Signal the launcher itself, not its group: the command would
 * get the signal twice.
 */
export function endSandboxed(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // the launcher has already exited
  }
}

/**
 * SIGKILLs a process group (a sandboxed command is spawned detached, as its group's leader). After the
 * launcher exits this finds nothing, unless the launcher itself was killed outright.
 */
export function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is already gone
  }
}

/**
 * The launcher's refusal, as it said it (its last `ollie-sandbox: ` line, without the prefix), when the exit
 * status is the launcher's own; undefined when the command itself ran.
 */
export function launcherRefusal(exitCode: number | null | undefined, stderr: string): string | undefined {
  if (exitCode === null || exitCode === undefined || !LAUNCHER_EXITS.has(exitCode)) return undefined;
  const lastLine = stderr.trimEnd().split("\n").pop() ?? "";
  return lastLine.startsWith("ollie-sandbox: ") ? lastLine.slice("ollie-sandbox: ".length) : undefined;
}
