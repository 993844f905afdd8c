import { stat } from "node:fs/promises";
import { join } from "node:path";
import {
  MAX_PROMPT_PART_BYTES,
  PromptCommandError,
  PromptFileError,
  type PromptPlace,
  type PromptRunner,
} from "@ollie/agent-core/config";
import {
  ProtectedPathError,
  resolvePolicy,
  runSandboxed,
  type SandboxPolicy,
  withLayer,
} from "@ollie/sandbox";
import { oneLine } from "../one-line.js";
import { type OlliePaths, trustedConfig } from "../paths.js";

/** How the daemon's agents' prompt commands are confined (see sandboxedPrompts). */
export interface PromptSandbox {
  /** The policy the agents' tools run under, templates unexpanded. */
  policy(): Promise<SandboxPolicy>;
  /** Directories a prompt command may read beyond the agent's policy: where the prompts it prints are kept. */
  readable: readonly string[];
  /** Paths no prompt command may reach (a policy that would grant one does not run). */
  protect: readonly string[];
}

/**
 * The daemon's prompt sandbox: the policy toolsrv gives tools (the built-in defaults, sandbox.yaml), read
 * when first needed; the prompts of the configuration and of the shipped defaults readable; and unreachable
 * the owner key, everything under `$XDG_DATA_HOME/ollie` (keys, sessions, logins) and what toolsrv protects
 * in the configuration directory — but its prompts, which the commands print.
 */
export function daemonPromptSandbox(
  paths: OlliePaths,
  ownerKey: string,
  env: NodeJS.ProcessEnv,
): PromptSandbox {
  const prompts = join(paths.config, "prompts");
  let policy: Promise<SandboxPolicy> | undefined;
  return {
    policy: () => {
      policy ??= resolvePolicy({ env }).catch((error: unknown) => {
        policy = undefined;
        throw error;
      });
      return policy;
    },
    readable: [prompts, join(paths.defaults, "prompts")],
    protect: [ownerKey, paths.data, ...trustedConfig(paths).filter((p) => p !== prompts)],
  };
}

/** The agent whose prompt commands run: its uname, its private TMPDIR and its session's environment. */
export interface PromptAgent {
  /** Its prompt commands share one group of resource limits (see `runSandboxed`'s `group`). */
  uname: string;
  tmpDir: string;
  env: Readonly<Record<string, string>>;
}

/** What a prompt command gets of the daemon's environment, beside its session's: nothing secret. */
const PASSED = [
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "TZ",
  "OLLIE",
  "OLLIE_DEFAULTS",
];

/** The trees an agent's tools write; its prompt commands only read them. */
const AGENT_TREE = /^\{(CWD|TMPDIR)\}(\/|$)/;

/**
 * Runs an agent's prompt commands, and reads its prompt files, inside the agent's own sandbox: the policy its
 * tools get, with its working directory and TMPDIR read-only, plus `readable`. A prompt command is the owner's,
 * but what it reads is the agent's — `cat AGENTS.md` reads whatever link its tools planted there — and its
 * output becomes the system prompt the agent reads back. So it may read only what the agent itself may, and
 * it gets the environment a tool gets (the session's, not the daemon's, which holds provider keys).
 *
 * A directory holding a protected file (a home directory, say) is not granted at all: the commands still run
 * there, and read nothing of it.
 */
export function sandboxedPrompts(sandbox: PromptSandbox, agent: PromptAgent): PromptRunner {
  const run = async (command: string, args: string[], where: PromptPlace) => {
    const policy = readOnly(await sandbox.policy(), sandbox.readable);
    const options = {
      cwd: where.cwd,
      env: commandEnv(where, agent),
      protect: sandbox.protect,
      timeoutMs: where.timeoutMs,
      maxBuffer: MAX_PROMPT_PART_BYTES,
      stdin: "ignore" as const,
      group: agent.uname,
    };
    try {
      return await runSandboxed(command, args, { ...options, policy });
    } catch (error) {
      if (!(error instanceof ProtectedPathError) || error.granted !== where.cwd) throw error;
      return runSandboxed(command, args, { ...options, policy: withoutTree(policy, "{CWD}") });
    }
  };
  return {
    async command(command, where) {
      const r = await run("/bin/sh", ["-c", command], where).catch((error: Error) => {
        throw new PromptCommandError(command, `could not run in the agent's sandbox: ${error.message}`);
      });
      if (r.launcherError !== undefined)
        throw new PromptCommandError(command, `could not run in the agent's sandbox: ${r.launcherError}`);
      if (r.timedOut)
        throw new PromptCommandError(command, `did not finish within ${where.timeoutMs / 1000} s`);
      if (r.truncated)
        throw new PromptCommandError(command, `printed more than ${MAX_PROMPT_PART_BYTES / 1024} KiB`);
      if (r.exitCode !== 0) {
        const said = lastWords(r.stderr);
        const status = r.exitCode ?? `none, killed by ${r.signal}`;
        throw new PromptCommandError(command, `failed (exit status ${status})${said ? `: ${said}` : ""}`);
      }
      return r.stdout.toString("utf8");
    },
    async file(file, where) {
      // What stat tells is metadata, which no sandbox hides; the contents are read inside the agent's.
      const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
        throw new PromptFileError(file, error.code === "ENOENT" ? "does not exist" : error.message);
      });
      if (info.isDirectory()) throw new PromptFileError(file, "is a directory");
      if (!info.isFile()) throw new PromptFileError(file, "is not a regular file");
      const r = await run("/bin/cat", ["--", file], where).catch((error: Error) => {
        throw new PromptFileError(file, `cannot be read in the agent's sandbox: ${error.message}`);
      });
      if (r.truncated) throw new PromptFileError(file, `is larger than ${MAX_PROMPT_PART_BYTES / 1024} KiB`);
      if (r.launcherError !== undefined || r.exitCode !== 0)
        throw new PromptFileError(
          file,
          `cannot be read in the agent's sandbox: ${r.launcherError ?? lastWords(r.stderr)}`,
        );
      return r.stdout.toString("utf8");
    },
  };
}

/** The policy with the agent's own trees read-only, and `readable` added for reading. */
function readOnly(policy: SandboxPolicy, readable: readonly string[]): SandboxPolicy {
  const { ro, rox, rw, rwx } = policy.filesystem;
  const layer = {
    filesystem: {
      ro: [...ro, ...rw.filter((p) => AGENT_TREE.test(p)), ...readable],
      rox: [...rox, ...rwx.filter((p) => AGENT_TREE.test(p))],
      rw: rw.filter((p) => !AGENT_TREE.test(p)),
      rwx: rwx.filter((p) => !AGENT_TREE.test(p)),
    },
    replace: ["filesystem.ro", "filesystem.rox", "filesystem.rw", "filesystem.rwx"],
  };
  return withLayer(policy, layer, "prompt commands (the agent's directory and TMPDIR read-only)");
}

/** The policy without the grants of `tree` and what lies below it. */
function withoutTree(policy: SandboxPolicy, tree: string): SandboxPolicy {
  const keep = (paths: string[]) => paths.filter((p) => p !== tree && !p.startsWith(`${tree}/`));
  const { ro, rox, rw, rwx } = policy.filesystem;
  const layer = {
    filesystem: { ro: keep(ro), rox: keep(rox), rw: keep(rw), rwx: keep(rwx) },
    replace: ["filesystem.ro", "filesystem.rox", "filesystem.rw", "filesystem.rwx"],
  };
  return withLayer(policy, layer, `prompt commands (${tree} holds a protected path)`);
}

function commandEnv(where: PromptPlace, agent: PromptAgent): Record<string, string> {
  const env: Record<string, string> = { PATH: "/usr/local/bin:/usr/bin:/bin" };
  for (const name of PASSED) {
    const value = where.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...agent.env, TMPDIR: agent.tmpDir, PWD: where.cwd };
}

/** The end of what a failed command said on stderr, on one line. */
function lastWords(stderr: Buffer): string {
  const lines = stderr.toString("utf8").trimEnd().split("\n").slice(-3);
  return oneLine(lines.join(" "), 400);
}
