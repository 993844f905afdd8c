import { isAbsolute, normalize } from "node:path";
import { SandboxUnavailableError } from "../errors.js";
import { type EnsureOptions, ensureLauncher } from "../launcher/ensure-launcher.js";
import { type LauncherArgOptions, launcherArgs } from "../launcher/launcher-args.js";
import { type LandlockProbe, missingFeatures, probeLandlock } from "../launcher/probe.js";
import { cgroupPlaces } from "../limits/cgroup-places.js";
import type { SandboxPolicy } from "../policy/policy.js";
import { refuseProtected } from "../policy/protect.js";
import { expandPolicy } from "../policy/resolve.js";

export interface SandboxCommandOptions {
  policy: SandboxPolicy;
  /**
   * The command's working directory, also `{CWD}` in the policy (default: this process's). Give its real
   * path: a grant of it follows no symbolic link (one put in its place by whoever may write the directory
   * above would carry the grant elsewhere), so a path through a link is refused — as is a grant beneath a
   * writable one that goes through a link beneath it.
   */
  cwd?: string;
  /** The command's whole environment, also the source of `{HOME}`, `{OLLIE_*}`… (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Use at most this Landlock ABI, to see what an older kernel would do. */
  abiCap?: number;
  launcher?: EnsureOptions;
  /**
   * Paths the command must never reach (a key file, say): if the expanded policy grants one of them, a
   * directory holding one, or a path inside one, nothing runs and a ProtectedPathError says which grant.
   * No policy may grant writing to the directory the launcher is kept in, nor to a cgroup filesystem (where
   * the command's resource limits are), either.
   */
  protect?: readonly string[];
  /**
   * Paths the command may read and run but never write (the code of the program that runs it, say): a
   * policy that would grant writing one (`rw`, `rwx`), a directory holding one, or a path inside one is
   * refused the same way.
   */
  protectWrites?: readonly string[];
}

/** A command ready to spawn: the launcher with the policy's options, then the command. */
export interface SandboxCommand {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  probe: LandlockProbe;
}

const probes = new Map<string, Promise<LandlockProbe>>();
const warned = new Set<string>();

/**
 * Turns a command and a policy into the launcher invocation that runs it sandboxed. Fails — never falls back
 * to running unsandboxed — when there is no Landlock, no launcher, or (without best effort) a rule the
 * kernel cannot enforce; with best effort, what is dropped is said once per process on stderr. Refuses,
 * too, a policy that once expanded for `cwd` and `env` would expose a `protect`ed path, or grant writing a
 * `protectWrites` one. The policy's limits are applied as rlimits (the launcher service puts commands in
 * cgroups as well; see `startSandboxed`).
 */
export function sandboxCommand(
  command: string,
  args: readonly string[],
  options: SandboxCommandOptions,
): Promise<SandboxCommand> {
  return prepareCommand(command, args, options);
}

/** `sandboxCommand`, with the cgroups of the command's group when it has them. */
export async function prepareCommand(
  command: string,
  args: readonly string[],
  options: SandboxCommandOptions,
  cgroups?: LauncherArgOptions["cgroups"],
): Promise<SandboxCommand> {
  const launcher = await ensureLauncher(options.launcher);
  const key = `${launcher.path}\0${options.abiCap ?? ""}`;
  let probing = probes.get(key);
  if (!probing) {
    probing = probeLandlock(launcher.path, options.abiCap);
    probes.set(key, probing);
    probing.catch(() => probes.delete(key));
  }
  const probe = await probing;
  if (probe.abi === 0) {
    throw new SandboxUnavailableError(
      `Landlock is not available (kernel ABI ${probe.kernelAbi}${options.abiCap === 0 ? ", capped to 0" : ""}); commands will not run unsandboxed`,
      "Use Linux 5.13 or later with Landlock enabled (check that 'landlock' is in /sys/kernel/security/lsm or the lsm= boot option)",
    );
  }
  const policy = options.policy;
  const missing = missingFeatures(probe.abi, policy);
  if (missing.length > 0) {
    const list = missing.map((m) => `${m.feature} (ABI ${m.needs})`).join(", ");
    if (!policy.bestEffort) {
      throw new SandboxUnavailableError(
        `The kernel's Landlock ABI ${probe.abi} cannot enforce ${list}`,
        "Use a newer kernel, relax the policy, or set general.best_effort: true to run without those rules",
      );
    }
    if (!warned.has(list)) {
      warned.add(list);
      process.stderr.write(
        `ollie-sandbox: best effort: Landlock ABI ${probe.abi} cannot enforce ${list}; running without it\n`,
      );
    }
  }
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const expanded = expandPolicy(policy, { cwd, env });
  const { mounts } = await cgroupPlaces();
  refuseProtected(expanded, {
    unreachable: options.protect ?? [],
    unwritable: [launcher.home, ...mounts, ...(options.protectWrites ?? [])],
  });
  const launcherOptions = launcherArgs(expanded, {
    quiet: true,
    ...(options.abiCap !== undefined && { abiCap: options.abiCap }),
    ...(cgroups && { cgroups }),
    // The working directory is granted as it really is: a link put in its place since is refused.
    ...(isAbsolute(cwd) && { noFollow: [normalize(cwd)] }),
  });
  return { file: launcher.path, args: [...launcherOptions, command, ...args], cwd, env, probe };
}
