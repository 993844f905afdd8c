/**
 * Ends a sandboxed command and everything it started, however it detached (`setsid`, a double fork,
 * daemon(3)): asks its launcher, which passes SIGTERM on and kills the whole tree after its grace period
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
