import { parseArgs } from "node:util";
import { PolicyError, ProtectedPathError, SandboxUnavailableError } from "../errors.js";
import { buildLauncher, ensureLauncher } from "../launcher/ensure-launcher.js";
import { launcherArgs } from "../launcher/launcher-args.js";
import { missingFeatures, probeLandlock } from "../launcher/probe.js";
import { describeEnforcement, limitEnforcement } from "../limits/enforcement.js";
import { resolveLimits } from "../limits/resolve-limits.js";
import { resourceGroups } from "../limits/resource-groups.js";
import { PATH_LISTS } from "../policy/path-lists.js";
import type { SandboxPolicy } from "../policy/policy.js";
import { expandPolicy, resolvePolicy } from "../policy/resolve.js";
import { sandboxCommand } from "../run/prepare.js";
import { runSandboxed } from "../run/run-sandboxed.js";

const USAGE = `usage: ollie-sandbox check [-p NAME]        what Landlock allows here and what the policy grants
       ollie-sandbox run [-p NAME] [--best-effort] -- COMMAND [ARGS...]
                                            run a command under the policy
       ollie-sandbox build                  compile the launcher here instead of using the prebuilt one
       ollie-sandbox --help | --version

-p NAME lays $XDG_CONFIG_HOME/ollie/sandbox/NAME.yaml over sandbox.yaml and the built-in defaults.
run exits with the command's status, or 125 when the sandbox refuses to start it; a usage mistake exits 2.
`;

const refusal = (err: unknown): string | undefined =>
  err instanceof SandboxUnavailableError || err instanceof PolicyError || err instanceof ProtectedPathError
    ? err.message
    : undefined;

async function check(name: string | undefined): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const launcher = await ensureLauncher();
    const probe = await probeLandlock(launcher.path);
    out(`launcher: ${launcher.path} (${launcher.origin}, revision ${probe.revision})`);
    out(
      `landlock: kernel ABI ${probe.kernelAbi}, used ABI ${probe.abi} (errata ${probe.errata}, ${probe.arch})`,
    );
    const policy = await resolvePolicy(name === undefined ? {} : { name });
    out(`policy: ${policy.sources.join(" + ")}`);
    out(`best effort: ${policy.bestEffort ? "yes" : "no"}`);
    const refuses = (err: unknown): number => {
      const why = refusal(err);
      if (why === undefined) throw err;
      out(`verdict: refuses to run: ${why}`);
      return 1;
    };
    let expanded: SandboxPolicy;
    try {
      expanded = expandPolicy(policy, { cwd: process.cwd(), env: process.env });
    } catch (err) {
      return refuses(err);
    }
    for (const list of PATH_LISTS) {
      out(`${list}: ${expanded.filesystem[list].join(" ") || "(nothing)"}`);
    }
    const n = expanded.network;
    out(
      `network: ${!n.enabled ? "off (no IPv4/IPv6 sockets)" : n.unrestricted ? "any TCP port" : `TCP connect ${n.connectTcp.join(",") || "none"}; bind ${n.bindTcp.join(",") || "none"}`}`,
    );
    const groups = await resourceGroups();
    out("limits (a group is the commands of one agent in toolsrv, of one program otherwise):");
    for (const e of limitEnforcement(policy, groups)) out(`  ${describeEnforcement(e)}`);
    out(`user namespaces: ${policy.userNamespaces ? "allowed by the policy" : "refused (seccomp)"}`);
    // As `run` gives them: with the cgroups of its group (each command makes one of its own in each).
    const lease = groups.enter("default", resolveLimits(policy.limits));
    out(`launcher options: ${launcherArgs(expanded, { cgroups: lease }).join(" ")}`);
    lease.release();
    // The verdict is what `run` would do here: the same checks, short of starting a command.
    try {
      await sandboxCommand("true", [], { policy });
    } catch (err) {
      return refuses(err);
    }
    const missing = missingFeatures(probe.abi, policy);
    const list = missing.map((m) => `${m.feature} (ABI ${m.needs})`).join(", ");
    out(
      missing.length > 0 ? `verdict: runs without ${list} (best effort)` : "verdict: every rule is enforced",
    );
    return 0;
  } catch (err) {
    const why = refusal(err);
    if (why === undefined) throw err;
    process.stderr.write(`ollie-sandbox: ${why}\n`);
    return 1;
  }
}

/** `ollie-sandbox`: check, build or run. Returns the exit status (run returns the command's). */
export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    return usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${__PACKAGE_VERSION__}\n`);
    return 0;
  }
  const [command, ...operands] = positionals;
  if (command !== "run" && operands.length > 0) return usageError(`${command} takes no operands`);
  switch (command) {
    case undefined:
      return usageError("no command given");
    case "check":
      return check(values.p);
    case "build": {
      const built = await buildLauncher();
      process.stdout.write(`built ${built.path}\n`);
      return 0;
    }
    case "run": {
      const [file, ...args] = operands;
      if (file === undefined) return usageError("run needs a command");
      try {
        let policy = await resolvePolicy(values.p === undefined ? {} : { name: values.p });
        if (values["best-effort"]) policy = { ...policy, bestEffort: true };
        const result = await runSandboxed(file, args, { policy, stdin: process.stdin });
        process.stdout.write(result.stdout);
        process.stderr.write(result.stderr);
        if (result.signal) {
          // Dying of the command's signal, this process runs no exit handlers: its cgroups go first.
          (await resourceGroups()).close();
          process.kill(process.pid, result.signal);
        }
        return result.exitCode ?? 1;
      } catch (err) {
        const why = refusal(err);
        if (why === undefined) throw err;
        process.stderr.write(`ollie-sandbox: ${why}\n`);
        return 125;
      }
    }
    default:
      return usageError(`unknown command '${command}'`);
  }
}

const parse = (args: string[]) =>
  parseArgs({
    args,
    options: {
      p: { type: "string" },
      "best-effort": { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
    allowPositionals: true,
  });

function usageError(problem: string): number {
  process.stderr.write(`ollie-sandbox: ${problem}\n${USAGE}`);
  return 2;
}
