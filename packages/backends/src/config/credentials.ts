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
 * `options.signal` allows: then it is killed with everything it started (its process group).
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
      const timeout = AbortSignal.timeout(KEY_CMD_TIMEOUT_MS);
      const stop = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
      if (stop.aborted) throw new CredentialError(profile.name, "key_cmd was not run: it was called off");
      // Loaded here, not with the package: a program that never runs a key_cmd never loads process spawning.
      const { execa } = await import("execa");
      // Its own process group, so that what the shell started goes with it.
      const child = execa(c.command, { shell: true, env, reject: false, stdin: "ignore", detached: true });
      const kill = () => {
        // Once the shell is reaped its pid, and so its group's number, may be another process's.
        if (child.exitCode !== null || child.signalCode !== null) return;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      };
      stop.addEventListener("abort", kill, { once: true });
      let result: Awaited<typeof child>;
      try {
        result = await child;
      } finally {
        stop.removeEventListener("abort", kill);
      }
      const value =
        String(result.stdout ?? "")
          .split("\n")[0]
          ?.trim() ?? "";
      if (stop.aborted || result.failed) {
        const why = timeout.aborted
          ? `did not finish within ${KEY_CMD_TIMEOUT_MS / 1000} s`
          : stop.aborted
            ? "was stopped: its caller gave up waiting"
            : `failed (exit status ${result.exitCode ?? "none"})`;
        throw new CredentialError(profile.name, `key_cmd ${why}`);
      }
      if (value === "") throw new CredentialError(profile.name, "key_cmd printed nothing");
      return new Secret(value);
    }
  }
}
