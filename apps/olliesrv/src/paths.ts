import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ollieDirs } from "@ollie/config-file/dirs";
import { namespaceDir } from "@ollie/ninep";

/** Where Ollie keeps things: its XDG directories (`ollieDirs` of @ollie/config-file), and what is in them. */
export interface OlliePaths {
  /** `$XDG_CONFIG_HOME/ollie`: backends.conf, agents/, prompts/, tools/, skills/, sandbox.yaml. */
  config: string;
  /** `$XDG_DATA_HOME/ollie`: the owner key, the sessions, the providers' logins — nothing any sandbox reaches. */
  data: string;
  /** `$XDG_CACHE_HOME/ollie`: what can be made again, such as the toolsrv bundles staged for remote hosts. */
  cache: string;
  /** `$XDG_DATA_HOME/ollie/sessions`: one JSON file per session. */
  sessions: string;
  /** Where corrupt session files are moved. */
  corrupt: string;
  /**
   * `$XDG_DATA_HOME/ollie/keys/owner.key`: the secret the human proves. No sandbox policy may reach it
   * (toolsrv refuses a call whose policy would).
   */
  ownerKey: string;
  /** The 9P namespace directory (`$NAMESPACE`, plan9port's default otherwise). */
  namespace: string;
  /** What ships with the app: default profiles, prompts, skills, backends.conf. */
  defaults: string;
}

export const DEFAULTS = fileURLToPath(new URL("../defaults", import.meta.url));

export function olliePaths(env: NodeJS.ProcessEnv = process.env): OlliePaths {
  const { config, data, cache } = ollieDirs(env);
  return {
    config,
    data,
    cache,
    sessions: join(data, "sessions"),
    corrupt: join(data, "sessions", "corrupt"),
    ownerKey: join(data, "keys", "owner.key"),
    namespace: namespaceDir(env),
    defaults: DEFAULTS,
  };
}

/**
 * What in the configuration directory olliesrv and toolsrv run or trust, which no tool may reach (toolsrv's
 * `--protect`, whether or not each exists yet): backends.conf (its key_cmd runs, its keys go where its urls
 * say, and olliesrv takes a change at once), the agent profiles (their prompt commands and hooks run outside
 * the sandbox), the hooks and prompts they name by convention, the skills, the sandbox and bypass
 * policies, notify.conf (its commands run outside the sandbox), mcp.json (the environment it gives MCP
 * servers often holds their tokens), remote.yaml (its ssh options and node command run outside the sandbox)
 * and olliesrv.yaml (its telemetry endpoint is where traces go, its headers are credentials). Not tools/ (each tool runs sandboxed,
 * from its own directory) nor memory/ (tools write it).
 */
export function trustedConfig(paths: OlliePaths): string[] {
  return [
    "backends.conf",
    "agents",
    "hooks",
    "prompts",
    "skills",
    "sandbox.yaml",
    "sandbox",
    "bypass.yaml",
    "notify.conf",
    "mcp.json",
    "remote.yaml",
    "olliesrv.yaml",
  ].map((name) => join(paths.config, name));
}

/** Creates the directories Ollie writes to (private to the user). */
export async function ensureDirs(paths: OlliePaths): Promise<void> {
  for (const dir of [paths.config, paths.sessions, paths.corrupt])
    await mkdir(dir, { recursive: true, mode: 0o700 });
}
