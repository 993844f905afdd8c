import { formatDuration, formatSize, type LimitName } from "../policy/limit-values.js";
import type { SandboxPolicy } from "../policy/policy.js";
import type { Controller } from "./cgroup-places.js";
import { type ResolvedLimits, resolveLimits } from "./resolve-limits.js";
import type { ResourceGroups } from "./resource-groups.js";

/** How the kernel enforces one limit of a policy here, as `ollie-sandbox check` says it. */
export interface LimitEnforcement {
  limit: LimitName;
  /** Tasks, bytes or seconds; null when the policy sets none. */
  value: number | null;
  /** For memory given as a share of the RAM: that share (0–1]. */
  share?: number;
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
  const memory = policy.limits.memory;
  return all.map((e) =>
    e.value === null
      ? { ...e, by: null, how: "no limit set" }
      : e.limit === "memory" && memory && "share" in memory
        ? { ...e, share: memory.share }
        : e,
  );
}

const NAMES: Record<LimitName, string> = {
  processes: "processes",
  memory: "memory",
  file_size: "file size",
  cpu_time: "CPU time",
};

/**
 * One limit as a person reads it, as `ollie-sandbox check` prints it: `processes: 512 tasks per group, by
 * cgroup v1 (the pids controller, in /sys/fs/cgroup/pids/ollie-42)`, `file size: 1 GiB per process, by rlimit
 * (RLIMIT_FSIZE)`, `processes: 512 tasks per group: not enforced: …`. `group` is what a group is called
 * where it is read (toolsrv's are agents).
 */
export function describeEnforcement(e: LimitEnforcement, group = "group"): string {
  const name = NAMES[e.limit];
  if (e.value === null) return `${name}: unlimited`;
  const share = e.share === undefined ? "" : ` (${Math.round(e.share * 1000) / 10}% of the RAM)`;
  const value =
    e.limit === "processes"
      ? `${e.value} tasks`
      : e.limit === "cpu_time"
        ? formatDuration(e.value)
        : `${formatSize(e.value)}${share}`;
  const per = `per ${e.per === "group" ? group : e.per}`;
  return e.by === null
    ? `${name}: ${value} ${per}: ${e.how}`
    : `${name}: ${value} ${per}, by ${e.by} (${e.how})`;
}
