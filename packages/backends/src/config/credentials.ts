import { execa } from "execa";
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

/**
 * The profile's credential: the literal, the environment variable, or the first line a command prints.
 * Undefined when the profile has none (a local Ollama).
 */
export async function resolveCredential(
  profile: Profile,
  env: NodeJS.ProcessEnv = process.env,
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
      const result = await execa(c.command, {
        shell: true,
        env,
        reject: false,
        timeout: 30_000,
        stdin: "ignore",
      });
      const value =
        String(result.stdout ?? "")
          .split("\n")[0]
          ?.trim() ?? "";
      if (result.failed) {
        const why = result.timedOut
          ? "did not finish within 30 s"
          : `failed (exit status ${result.exitCode ?? "none"})`;
        throw new CredentialError(profile.name, `key_cmd ${why}`);
      }
      if (value === "") throw new CredentialError(profile.name, "key_cmd printed nothing");
      return new Secret(value);
    }
  }
}
