import type { LimitReached } from "@ollie/sandbox";

/**
 * The resource limit that ended a tool, if one did: the process limit (toolsrv's launcher ends a tool whose
 * fork was refused), or the limit whose signal killed it — SIGKILL for memory, SIGXCPU, SIGXFSZ. A limit a
 * process inside reached without ending the tool (a child killed for memory) ended nothing.
 */
export function limitThatStopped(o: {
  exitCode?: number | null;
  signal?: string | null;
  reached?: readonly LimitReached[];
}): LimitReached | undefined {
  const killedBy = { memory: "SIGKILL", cpu_time: "SIGXCPU", file_size: "SIGXFSZ" } as const;
  const reached = o.reached ?? [];
  return (
    reached.find((l) => l.limit === "processes") ??
    reached.find((l) => l.limit !== "processes" && o.exitCode === null && o.signal === killedBy[l.limit])
  );
}
