import type { LimitReached } from "@ollie/sandbox";

/** The signal that ends a process at each limit: the launcher's or the OOM killer's SIGKILL, or the rlimit's. */
const KILLED_BY = {
  processes: "SIGKILL",
  memory: "SIGKILL",
  cpu_time: "SIGXCPU",
  file_size: "SIGXFSZ",
} as const;

/**
 * The resource limit that ended a tool, if one did: one it reached whose signal killed it — SIGKILL when the
 * launcher ended its tree at a refused fork (the process limit first, when the memory limit was reached
 * too) or the OOM killer killed it, SIGXCPU, SIGXFSZ. A limit a process inside reached without ending the
 * tool (a child killed for memory, a refused fork of a tool that then exited) ended nothing.
 */
export function limitThatStopped(o: {
  exitCode?: number | null;
  signal?: string | null;
  reached?: readonly LimitReached[];
}): LimitReached | undefined {
  if (o.exitCode !== null || !o.signal) return undefined;
  const ended = (o.reached ?? []).filter((l) => KILLED_BY[l.limit] === o.signal);
  return ended.find((l) => l.limit === "processes") ?? ended[0];
}
