import { homedir } from "node:os";
import type { Backend } from "../backend.js";
import { AnthropicBackend } from "../providers/anthropic/anthropic-backend.js";
import { CopilotBackend } from "../providers/copilot/copilot-backend.js";
import { DemoBackend } from "../providers/demo/demo-backend.js";
import { GeminiBackend } from "../providers/gemini/gemini-backend.js";
import { KiroBackend } from "../providers/kiro/kiro-backend.js";
import { OllamaBackend } from "../providers/ollama/ollama-backend.js";
import { OpenAiBackend } from "../providers/openai/openai-backend.js";
import type { BackendsConf, Profile } from "./backends-conf.js";
import { resolveCredential } from "./credentials.js";

/** How a backend is made: `signal` stops a key_cmd; `onWarning` hears of settings a request had to change. */
export interface CreateOptions {
  signal?: AbortSignal | undefined;
  onWarning?: ((message: string) => void) | undefined;
}

/**
 * Makes the backend a profile describes, with its credential (a key_cmd stopped when `options.signal`
 * aborts).
 */
export async function createBackend(
  profile: Profile,
  env: NodeJS.ProcessEnv = process.env,
  options: CreateOptions = {},
): Promise<Backend> {
  const apiKey = await resolveCredential(profile, env, options);
  const common = {
    name: profile.name,
    ...(options.onWarning !== undefined && { onWarning: options.onWarning }),
    model: profile.model,
    headers: profile.headers,
    ...(apiKey !== undefined && { apiKey }),
    ...(profile.url !== undefined && { baseUrl: profile.url }),
  };
  switch (profile.type) {
    case "openai":
      return new OpenAiBackend({
        ...common,
        baseUrl: profile.url!,
        ...(profile.maxTokensField && { maxTokensField: profile.maxTokensField }),
        ...(profile.systemRole && { systemRole: profile.systemRole }),
      });
    case "anthropic":
      return new AnthropicBackend(common);
    case "ollama":
      return new OllamaBackend({
        ...common,
        ...(profile.numCtx !== undefined && { numCtx: profile.numCtx }),
      });
    case "gemini":
      return new GeminiBackend(common);
    case "copilot":
      return new CopilotBackend({
        ...common,
        ...(profile.githubUrl !== undefined && { githubUrl: profile.githubUrl }),
        env,
      });
    case "kiro":
      return new KiroBackend({
        ...common,
        ...(profile.region !== undefined && { region: profile.region }),
        // `~/` in backends.conf means the home of whoever runs olliesrv.
        ...(profile.tokenFile !== undefined && {
          tokenFile: profile.tokenFile.replace(/^~(?=\/)/, env.HOME || homedir()),
        }),
        env,
      });
    case "demo":
      return new DemoBackend({ name: profile.name, model: profile.model });
  }
}

/** Thrown for a profile name that backends.conf does not define. */
export class UnknownProfileError extends Error {
  override readonly name = "UnknownProfileError";
}

/**
 * Hands out one backend per profile of a backends.conf, made on first use (its credential resolved then)
 * and shared afterwards. Backends keep their model per instance: call `fresh` for one an agent may switch.
 */
export class BackendPool {
  private readonly made = new Map<string, Promise<Backend>>();

  constructor(
    readonly conf: BackendsConf,
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly onWarning?: (message: string) => void,
  ) {}

  /** The profile named, or the default one. */
  profile(name?: string): Profile {
    const wanted = name ?? this.conf.defaultProfile;
    const profile = wanted === undefined ? undefined : this.conf.profiles.get(wanted);
    if (!profile) {
      const known = [...this.conf.profiles.keys()].join(", ") || "none";
      throw new UnknownProfileError(
        wanted === undefined
          ? `no default backend profile (profiles: ${known})`
          : `no backend profile '${wanted}' (profiles: ${known})`,
      );
    }
    return profile;
  }

  get(name?: string): Promise<Backend> {
    const profile = this.profile(name);
    let backend = this.made.get(profile.name);
    if (!backend) {
      backend = createBackend(profile, this.env, { onWarning: this.onWarning });
      this.made.set(profile.name, backend);
      backend.catch(() => this.made.delete(profile.name));
    }
    return backend;
  }

  /**
   * A backend of its own for the profile, not shared with anyone. `options.signal` stops the profile's
   * key_cmd, if it runs one, when it aborts.
   */
  fresh(name?: string, options: { signal?: AbortSignal | undefined } = {}): Promise<Backend> {
    return createBackend(this.profile(name), this.env, { onWarning: this.onWarning, ...options });
  }

  names(): string[] {
    return [...this.conf.profiles.keys()];
  }
}
