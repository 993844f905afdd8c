import { parseArgs } from "node:util";
import { PolicyError, ProtectedPathError, SandboxUnavailableError } from "../errors.js";
import { buildLauncher, ensureLauncher } from "../launcher/ensure-launcher.js";
import { launcherArgs } from "../launcher/launcher-args.js";
import { missingFeatures, probeLandlock } from "../launcher/probe.js";
import { PATH_LISTS, type SandboxPolicy } from "../policy/policy.js";
import { expandPolicy, resolvePolicy } from "../policy/resolve.js";
import { sandboxCommand } from "../run/prepare.js";
import { runSandboxed } from "../run/run-sandboxed.js";

const USAGE = `usage: ollie-sandbox check [-p NAME]        what Landlock allows here and what the policy grants
       ollie-sandbox run [-p NAME] [--best-effort] -- COMMAND [ARGS...]
                                            run a command under the policy
       ollie-sandbox build                  compile the launcher here instead of using the prebuilt one

-p NAME lays $XDG_CONFIG_HOME/ollie/sandbox/NAME.yaml over sandbox.yaml and the built-in defaults.
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
    out(`launcher options: ${launcherArgs(expanded).join(" ")}`);
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
      const built = await buildLauncher();
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
        const why = refusal(err);
        if (why === undefined) throw err;
        process.stderr.write(`ollie-sandbox: ${why}\n`);
        return 125;
      }
    }
  }
  process.stderr.write(USAGE);
  return command === undefined || values.help ? 0 : 2;
}
