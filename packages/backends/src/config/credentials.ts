import { loadSandbox } from "../load-sandbox.js";
import type { Profile } from "./backends-conf.js";
import { Secret } from "./secret.js";

/** A profile's credential could not be obtained. The message never contains a credential. */
export class CredentialError extends Error {
  override readonly name = "CredentialError";
  constructor(
    readonly profile: string,
    problem: string,
  ) {
    super(`[${profile}]: ${problem}`);
  }
}

/** How long a key_cmd may run. */
const KEY_CMD_TIMEOUT_MS = 30_000;

/**
 * The profile's credential: the literal, the environment variable, or the first line a command prints.
 * Undefined when the profile has none (a local Ollama). A key_cmd runs for 30 s at most, and no longer than
 * `options.signal` allows: then it is killed with everything it started (its process group). Running one
 * needs `@ollie/sandbox` installed; without it this throws SandboxNotInstalledError.
 */
export async function resolveCredential(
  profile: Profile,
  env: NodeJS.ProcessEnv = process.env,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<Secret | undefined> {
  const c = profile.credential;
  switch (c.kind) {
    case "none":
      return undefined;
    case "literal":
      return c.value;
    case "env": {
      const value = env[c.variable];
      if (!value) throw new CredentialError(profile.name, `key_env names ${c.variable}, which is not set`);
      return new Secret(value);
    }
    case "command": {
      if (options.signal?.aborted)
        throw new CredentialError(profile.name, "key_cmd was not run: it was called off");
      // Loaded here, not with the package: a program that never runs a key_cmd needs no @ollie/sandbox (an
      // optional peer) and loads no process spawning.
      const { runShellInGroup } = await loadSandbox(
        `the key_cmd of [${profile.name}]`,
        () => import("@ollie/sandbox/process"),
      );
      // A process tree of its own: what the command starts ends with it, at its timeout or the caller's signal.
      const { result, stopped } = await runShellInGroup(c.command, {
        env: { ...process.env, ...env },
        timeoutMs: KEY_CMD_TIMEOUT_MS,
        signal: options.signal,
      });
      const value =
        String(result.stdout ?? "")
          .split("\n")[0]
          ?.trim() ?? "";
      if (stopped !== undefined || result.failed) {
        const why =
          stopped === "timeout"
            ? `did not finish within ${KEY_CMD_TIMEOUT_MS / 1000} s`
            : stopped === "abort"
              ? "was stopped: its caller gave up waiting"
              : `failed (exit status ${result.exitCode ?? "none"})`;
        throw new CredentialError(profile.name, `key_cmd ${why}`);
      }
      if (value === "") throw new CredentialError(profile.name, "key_cmd printed nothing");
      return new Secret(value);
    }
  }
}
