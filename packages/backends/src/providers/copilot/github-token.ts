import { join } from "node:path";
import { xdgDirs } from "@ollie/config-file/dirs";
import { credentialStoreFile, readJsonFile, readStoredCredential } from "../../config/credential-store.js";

/** The key of Copilot's entries in Ollie's credential file: `{"copilot": {"github.com": {…}}}`. */
export const COPILOT_STORE_KEY = "copilot";

/** What `ollie login copilot` keeps per GitHub host. */
export interface StoredGithubLogin {
  githubToken: string;
  /** Where it came from: "device flow", or the file it was imported from. */
  source: string;
  user?: string;
}

/** A GitHub token and where it was found (for messages; never the token itself). */
export interface FoundGithubToken {
  token: string;
  from: string;
}

/** Where files are looked for: tests point these at a temporary home. */
export interface TokenPlaces {
  env?: NodeJS.ProcessEnv;
  /** Ollie's credential file; credentialStoreFile(env) by default. */
  storeFile?: string;
}

/**
 * The GitHub token `ollie login copilot` stored for `host`; failing that, one an official Copilot plugin
 * stored: copilot.vim and the Copilot language server in `github-copilot/apps.json`, copilot.lua in
 * `hosts.json` (under `$XDG_CONFIG_HOME`, else `~/.config`).
 */
export async function findGithubToken(
  host: string,
  places: TokenPlaces = {},
): Promise<FoundGithubToken | undefined> {
  const env = places.env ?? process.env;
  const storeFile = places.storeFile ?? credentialStoreFile(env);
  const stored = (await readStoredCredential(storeFile, COPILOT_STORE_KEY)) as
    | Record<string, Partial<StoredGithubLogin>>
    | undefined;
  const login = stored?.[host];
  if (typeof login?.githubToken === "string" && login.githubToken !== "")
    return { token: login.githubToken, from: storeFile };
  return findPluginToken(host, env);
}

/** The files the official Copilot plugins keep their GitHub token in, newest format first. */
export function pluginTokenFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const { config } = xdgDirs(env);
  return [join(config, "github-copilot", "apps.json"), join(config, "github-copilot", "hosts.json")];
}

/**
 * A token a Copilot plugin stored for `host`: the first entry whose key is the host or starts with
 * `host:` (apps.json keys are `github.com:APP_ID`) and that has an `oauth_token`.
 */
export async function findPluginToken(
  host: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<(FoundGithubToken & { user?: string }) | undefined> {
  for (const file of pluginTokenFiles(env)) {
    const entries = await readJsonFile(file).catch(() => undefined);
    if (typeof entries !== "object" || entries === null) continue;
    for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
      if (key !== host && !key.startsWith(`${host}:`)) continue;
      const { oauth_token: token, user } = (value ?? {}) as { oauth_token?: unknown; user?: unknown };
      if (typeof token === "string" && token !== "")
        return { token, from: file, ...(typeof user === "string" && { user }) };
    }
  }
  return undefined;
}
