import { join } from "node:path";
import { parseArgs } from "node:util";
import { PolicyError, SandboxUnavailableError } from "../errors.js";
import { compileLauncher, ensureLauncher } from "../launcher/ensure-launcher.js";
import { launcherArgs } from "../launcher/launcher-args.js";
import { packageRoot } from "../launcher/package-root.js";
import { missingFeatures, probeLandlock } from "../launcher/probe.js";
import { PATH_LISTS } from "../policy/policy.js";
import { expandPolicy, resolvePolicy } from "../policy/resolve.js";
import { runSandboxed } from "../run/run-sandboxed.js";

const USAGE = `usage: ollie-sandbox check [-p NAME]        what Landlock allows here and what the policy grants
       ollie-sandbox run [-p NAME] [--best-effort] -- COMMAND [ARGS...]
                                            run a command under the policy
       ollie-sandbox build                  compile the launcher into the package

-p NAME lays $XDG_CONFIG_HOME/ollie/sandbox/NAME.yaml over sandbox.yaml and the built-in defaults.
`;

async function check(name: string | undefined): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  let status = 0;
  try {
    const launcher = await ensureLauncher();
    const probe = await probeLandlock(launcher.path);
    out(`launcher: ${launcher.path}`);
    out(
      `landlock: kernel ABI ${probe.kernelAbi}, used ABI ${probe.abi} (errata ${probe.errata}, ${probe.arch})`,
    );
    const policy = await resolvePolicy(name === undefined ? {} : { name });
    out(`policy: ${policy.sources.join(" + ")}`);
    out(`best effort: ${policy.bestEffort ? "yes" : "no"}`);
    const expanded = expandPolicy(policy, { cwd: process.cwd(), env: process.env });
    for (const list of PATH_LISTS) {
      out(`${list}: ${expanded.filesystem[list].join(" ") || "(nothing)"}`);
    }
    const n = expanded.network;
    out(
      `network: ${!n.enabled ? "off (no IPv4/IPv6 sockets)" : n.unrestricted ? "any TCP port" : `TCP connect ${n.connectTcp.join(",") || "none"}; bind ${n.bindTcp.join(",") || "none"}`}`,
    );
    const missing = missingFeatures(probe.abi, policy);
    if (probe.abi === 0) {
      out("verdict: cannot run sandboxed commands: this kernel has no Landlock");
      status = 1;
    } else if (missing.length > 0) {
      const list = missing.map((m) => `${m.feature} (ABI ${m.needs})`).join(", ");
      out(
        policy.bestEffort
          ? `verdict: runs without ${list} (best effort)`
          : `verdict: refuses to run: needs ${list}`,
      );
      status = policy.bestEffort ? 0 : 1;
    } else {
      out("verdict: every rule is enforced");
    }
    out(`launcher options: ${launcherArgs(expanded).join(" ")}`);
  } catch (err) {
    if (err instanceof SandboxUnavailableError || err instanceof PolicyError) {
      process.stderr.write(`ollie-sandbox: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  return status;
}

/** `ollie-sandbox`: check, build or run. Returns the exit status (run returns the command's). */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      p: { type: "string" },
      "best-effort": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
  });
  switch (command) {
    case "check":
      return check(values.p);
    case "build": {
      const built = await compileLauncher(join(packageRoot(), "bin"));
      process.stdout.write(`built ${built.path}\n`);
      return 0;
    }
    case "run": {
      if (positionals.length === 0) break;
      const [file, ...args] = positionals;
      try {
        let policy = await resolvePolicy(values.p === undefined ? {} : { name: values.p });
        if (values["best-effort"]) policy = { ...policy, bestEffort: true };
        const result = await runSandboxed(file!, args, { policy, stdin: process.stdin });
        process.stdout.write(result.stdout);
        process.stderr.write(result.stderr);
        if (result.signal) process.kill(process.pid, result.signal);
        return result.exitCode ?? 1;
      } catch (err) {
        if (err instanceof SandboxUnavailableError || err instanceof PolicyError) {
          process.stderr.write(`ollie-sandbox: ${err.message}\n`);
          return 125;
        }
        throw err;
      }
    }
  }
  process.stderr.write(USAGE);
  return command === undefined || values.help ? 0 : 2;
}
