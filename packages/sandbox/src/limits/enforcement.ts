import type { LimitName } from "../policy/limit-values.js";
import type { SandboxPolicy } from "../policy/policy.js";
import type { Controller } from "./cgroup-places.js";
import { type ResolvedLimits, resolveLimits } from "./resolve-limits.js";
import type { ResourceGroups } from "./resource-groups.js";

/** How the kernel enforces one limit of a policy here, as `ollie-sandbox check` says it. */
export interface LimitEnforcement {
  limit: LimitName;
  /** Tasks, bytes or seconds; null when the policy sets none. */
  value: number | null;
  /** Whom it holds for: a group of commands together (an agent's, in toolsrv), each command, each process. */
  per: "group" | "command" | "process";
  /** What enforces it; null when nothing does (no limit, or none the kernel offers this process). */
  by: "cgroup v2" | "cgroup v1" | "rlimit" | null;
  /** In words: which controller or rlimit, where, or why it is not enforced. */
  how: string;
}

const KEYS: Record<LimitName, keyof ResolvedLimits> = {
  processes: "processes",
  memory: "memoryBytes",
  file_size: "fileSize",
  cpu_time: "cpuTime",
};

/**
 * How each limit of `policy` is enforced for commands `startSandboxed` runs here, with `groups` (this
 * process's resource groups) and as the user `uid`: a cgroup controller where this process may make
 * cgroups, otherwise an rlimit — per command or per process, and not at all for processes run as root.
 */
export function limitEnforcement(
  policy: SandboxPolicy,
  groups: ResourceGroups,
  uid = process.getuid?.() ?? 0,
): LimitEnforcement[] {
  const limits = resolveLimits(policy.limits);
  const inCgroup = (limit: LimitName, controller: Controller): LimitEnforcement | undefined => {
    const place = groups.placeOf(controller);
    return (
      place && {
        limit,
        value: limits[KEYS[limit]],
        per: "group",
        by: `cgroup v${place.version}`,
        how: `the ${controller} controller, in ${place.dir}`,
      }
    );
  };
  const byRlimit = (limit: LimitName, per: "command" | "process", how: string): LimitEnforcement => ({
    limit,
    value: limits[KEYS[limit]],
    per,
    by: "rlimit",
    how,
  });
  const all: LimitEnforcement[] = [
    inCgroup("processes", "pids") ??
      (uid === 0
        ? {
            limit: "processes",
            value: limits.processes,
            per: "group",
            by: null,
            how: `not enforced: ${groups.missing.pids}, and RLIMIT_NPROC does not hold for root`,
          }
        : byRlimit(
            "processes",
            "command",
            `RLIMIT_NPROC, as tasks beyond those of the user when the command starts (${groups.missing.pids})`,
          )),
    inCgroup("memory", "memory") ?? byRlimit("memory", "process", `RLIMIT_DATA (${groups.missing.memory})`),
    byRlimit("file_size", "process", "RLIMIT_FSIZE"),
    byRlimit("cpu_time", "process", "RLIMIT_CPU"),
  ];
  return all.map((e) => (e.value === null ? { ...e, by: null, how: "no limit set" } : e));
}
