import type { Controller } from "../limits/cgroup-places.js";
import { resolveLimits } from "../limits/resolve-limits.js";
import { entryError } from "../policy/origins.js";
import { PATH_LISTS } from "../policy/path-lists.js";
import type { SandboxPolicy } from "../policy/policy.js";

export interface LauncherArgOptions {
  /** Use at most this Landlock ABI (to try what an older kernel would do). */
  abiCap?: number;
  /** Leave best-effort notices to the caller. */
  quiet?: boolean;
  /**
   * The command's group's cgroups (see `ResourceGroups`): the command runs in a cgroup of its own under each,
   * and the controllers they hold stand in for the rlimits (RLIMIT_NPROC, RLIMIT_DATA) of the same limits.
   */
  cgroups?: { dirs: readonly string[]; controllers: ReadonlySet<Controller> };
  /**
   * Grants opened from `/` without following any symbolic link: the working directory, which whoever may
   * write the directory above it could swap for a link to elsewhere between the policy and the rule.
   */
  noFollow?: readonly string[];
}

/** The launcher options that apply an expanded policy (templates already replaced). */
export function launcherArgs(policy: SandboxPolicy, options: LauncherArgOptions = {}): string[] {
  const args: string[] = [];
  for (const list of PATH_LISTS) {
    for (const [i, path] of policy.filesystem[list].entries()) {
      // The launcher reads comma-separated lists, as landrun does.
      if (path.includes(","))
        throw entryError(
          `'${path}': paths containing ',' cannot be granted`,
          policy.origins?.[list]?.get(path),
          `filesystem.${list}[${i}]`,
        );
      args.push(`--${list}`, path);
    }
  }
  for (const path of options.noFollow ?? []) args.push("--no-follow", path);
  const net = policy.network;
  if (!net.enabled) args.push("--no-inet");
  else if (net.unrestricted) args.push("--unrestricted-network");
  if (net.enabled && !net.unrestricted) {
    if (net.bindTcp.length > 0) args.push("--bind-tcp", net.bindTcp.join(","));
    if (net.connectTcp.length > 0) args.push("--connect-tcp", net.connectTcp.join(","));
  }
  const limits = resolveLimits(policy.limits);
  const held = options.cgroups?.controllers ?? new Set<Controller>();
  for (const dir of options.cgroups?.dirs ?? []) args.push("--cgroup", dir);
  if (limits.processes !== null && !held.has("pids")) args.push("--rlimit-nproc", String(limits.processes));
  if (limits.memoryBytes !== null && !held.has("memory"))
    args.push("--rlimit-data", String(limits.memoryBytes));
  if (limits.fileSize !== null) args.push("--rlimit-fsize", String(limits.fileSize));
  if (limits.cpuTime !== null) args.push("--rlimit-cpu", String(limits.cpuTime));
  if (policy.userNamespaces) args.push("--allow-namespaces");
  if (policy.bestEffort) args.push("--best-effort");
  if (policy.ignoreMissing) args.push("--ignore-missing");
  if (options.quiet) args.push("--quiet");
  if (options.abiCap !== undefined) args.push("--abi-cap", String(options.abiCap));
  args.push("--");
  return args;
}
