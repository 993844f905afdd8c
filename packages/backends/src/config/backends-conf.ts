import { readFile } from "node:fs/promises";
import { DEMO_MODEL } from "../providers/demo/demo-backend.js";
import { Secret } from "./secret.js";

export const PROVIDER_TYPES = ["openai", "anthropic", "ollama", "gemini", "copilot", "kiro", "demo"] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** Where a profile's credential comes from. A literal is held as a Secret. */
export type CredentialSource =
  | { kind: "none" }
  | { kind: "literal"; value: Secret }
  | { kind: "env"; variable: string }
  | { kind: "command"; command: string };

/** One `[section]` of backends.conf. */
export interface Profile {
  name: string;
  type: ProviderType;
  url?: string;
  model: string;
  compactionModel?: string;
  headers: Record<string, string>;
  credential: CredentialSource;
  /** openai: `max_tokens` or `max_completion_tokens`. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** openai: `system` or `developer`. */
  systemRole?: "system" | "developer";
  /** ollama: the context window to allocate. */
  numCtx?: number;
  /** copilot: the GitHub site signed in to (https://github.com, or a GitHub Enterprise Cloud URL). */
  githubUrl?: string;
  /** kiro: the AWS region of the token service and API (us-east-1 by default). */
  region?: string;
  /** kiro: the token file to use instead of looking in Ollie's credentials and Kiro's own. */
  tokenFile?: string;
  /**
   * What a session made with this profile may spend, unless its agent profile or the session says otherwise
   * (olliesrv): `budget` in US dollars, `budget_tokens` in tokens.
   */
  budget?: { usd?: number; tokens?: number };
  /** The line of its `[section]` header. */
  line: number;
}

export interface BackendsConf {
  profiles: Map<string, Profile>;
  /** The profile used when none is named: `default = NAME`, or the only profile. */
  defaultProfile: string | undefined;
  file: string;
}

/** A mistake in backends.conf, with the file and line it is on. Never contains a credential. */
export class BackendsConfError extends Error {
  override readonly name = "BackendsConfError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(`${file}:${line}: ${problem}`);
  }
}

const PROFILE_KEYS = new Set([
  "type",
  "url",
  "model",
  "compaction_model",
  "header",
  "key",
  "key_env",
  "key_cmd",
  "max_tokens_field",
  "system_role",
  "num_ctx",
  "github_url",
  "region",
  "token_file",
  "budget",
  "budget_tokens",
]);

interface Draft {
  name: string;
  line: number;
  values: Map<string, { value: string; line: number }>;
  headers: Record<string, string>;
  credentials: Array<{ key: string; value: string; line: number }>;
}

/**
 * Parses backends.conf:
 *
 *     default = claude          # before any section: which profile to use when none is named
 *     [claude]
 *     type = anthropic          # openai, anthropic, ollama, gemini, copilot or kiro
 *     url = https://api.anthropic.com
 *     model = claude-sonnet-4-6
 *     compaction_model = claude-haiku-4-5
 *     key_env = ANTHROPIC_API_KEY   # or key = LITERAL, or key_cmd = SHELL COMMAND
 *     header = anthropic-beta: some-beta   # repeatable
 *     budget = 5.00             # what a session made with it may spend (USD); budget_tokens in tokens
 *     [copilot]
 *     type = copilot            # signed in with `ollie login copilot`; github_url for GitHub Enterprise
 *     model = claude-sonnet-4.5
 *     [kiro]
 *     type = kiro               # Kiro's or `ollie login kiro`'s token; region, token_file
 *     model = claude-sonnet-4.5
 *     [demo]
 *     type = demo               # offline and scripted, no key (model: ollie-demo unless given)
 *
 * Blank lines and lines starting with # or ; are ignored. Errors name the line.
 */
export function parseBackendsConf(text: string, file = "backends.conf"): BackendsConf {
  const drafts: Draft[] = [];
  let defaultProfile: { value: string; line: number } | undefined;
  let current: Draft | undefined;
  const fail = (line: number, problem: string): never => {
    throw new BackendsConfError(file, line, problem);
  };
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const n = i + 1;
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[([^\]]*)\]$/.exec(line);
    if (section) {
      const name = section[1]!.trim();
      if (!/^[\w.-]+$/.test(name))
        fail(n, `'[${name}]' is not a profile name (letters, digits, '.', '_', '-')`);
      if (drafts.some((d) => d.name === name)) fail(n, `profile [${name}] is defined twice`);
      current = { name, line: n, values: new Map(), headers: {}, credentials: [] };
      drafts.push(current);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0) fail(n, "expected 'key = value' or '[profile]'");
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (!current) {
      if (key !== "default") fail(n, `'${key}' must be inside a [profile] (only 'default' may come before)`);
      defaultProfile = { value, line: n };
      continue;
    }
    if (!PROFILE_KEYS.has(key)) fail(n, `unknown key '${key}' in [${current.name}]`);
    if (value === "") fail(n, `'${key}' in [${current.name}] has no value`);
    if (key === "header") {
      const colon = value.indexOf(":");
      if (colon <= 0) fail(n, `header in [${current.name}] must be 'Name: value'`);
      current.headers[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
    } else if (key === "key" || key === "key_env" || key === "key_cmd") {
      current.credentials.push({ key, value, line: n });
    } else {
      if (current.values.has(key)) fail(n, `'${key}' is set twice in [${current.name}]`);
      current.values.set(key, { value, line: n });
    }
  }
  const profiles = new Map(drafts.map((d) => [d.name, finishProfile(d, fail)]));
  if (defaultProfile && !profiles.has(defaultProfile.value)) {
    fail(defaultProfile.line, `default names profile '${defaultProfile.value}', which is not defined`);
  }
  const fallback = profiles.size === 1 ? [...profiles.keys()][0] : undefined;
  return { profiles, defaultProfile: defaultProfile?.value ?? fallback, file };
}

function finishProfile(d: Draft, fail: (line: number, problem: string) => never): Profile {
  const get = (k: string) => d.values.get(k)?.value;
  const type = get("type");
  if (type === undefined) fail(d.line, `[${d.name}] has no 'type' (${PROVIDER_TYPES.join(", ")})`);
  if (!PROVIDER_TYPES.includes(type as ProviderType)) {
    fail(
      d.values.get("type")!.line,
      `type '${type}' in [${d.name}] is not one of ${PROVIDER_TYPES.join(", ")}`,
    );
  }
  const model = get("model") ?? (type === "demo" ? DEMO_MODEL : undefined);
  if (model === undefined) fail(d.line, `[${d.name}] has no 'model'`);
  const url = get("url");
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url))
    fail(d.values.get("url")!.line, `url in [${d.name}] is not an http(s) URL`);
  if (url === undefined && type === "openai")
    fail(d.line, `[${d.name}] of type openai needs a 'url' (e.g. https://api.openai.com/v1)`);
  if (d.credentials.length > 1) {
    fail(d.credentials[1]!.line, `[${d.name}] sets more than one of key, key_env and key_cmd`);
  }
  const c = d.credentials[0];
  const credential: CredentialSource =
    c === undefined
      ? { kind: "none" }
      : c.key === "key"
        ? { kind: "literal", value: new Secret(c.value) }
        : c.key === "key_env"
          ? { kind: "env", variable: c.value }
          : { kind: "command", command: c.value };
  const profile: Profile = {
    name: d.name,
    type: type as ProviderType,
    model: model!,
    headers: d.headers,
    credential,
    line: d.line,
  };
  if (url !== undefined) profile.url = url;
  const compaction = get("compaction_model");
  if (compaction !== undefined) profile.compactionModel = compaction;
  const field = get("max_tokens_field");
  if (field !== undefined) {
    if (field !== "max_tokens" && field !== "max_completion_tokens") {
      fail(
        d.values.get("max_tokens_field")!.line,
        `max_tokens_field in [${d.name}] is max_tokens or max_completion_tokens`,
      );
    }
    profile.maxTokensField = field as Profile["maxTokensField"] & string;
  }
  const role = get("system_role");
  if (role !== undefined) {
    if (role !== "system" && role !== "developer")
      fail(d.values.get("system_role")!.line, `system_role in [${d.name}] is system or developer`);
    profile.systemRole = role as Profile["systemRole"] & string;
  }
  const githubUrl = get("github_url");
  if (githubUrl !== undefined) {
    if (!/^https?:\/\/[^\s]+$/.test(githubUrl))
      fail(d.values.get("github_url")!.line, `github_url in [${d.name}] is not an http(s) URL`);
    profile.githubUrl = githubUrl;
  }
  const region = get("region");
  if (region !== undefined) {
    if (!/^[a-z]{2}(?:-[a-z]+)+-\d$/.test(region))
      fail(d.values.get("region")!.line, `region in [${d.name}] is not an AWS region (e.g. us-east-1)`);
    profile.region = region;
  }
  const tokenFile = get("token_file");
  if (tokenFile !== undefined) profile.tokenFile = tokenFile;
  const numCtx = get("num_ctx");
  if (numCtx !== undefined) {
    if (!/^\d+$/.test(numCtx))
      fail(d.values.get("num_ctx")!.line, `num_ctx in [${d.name}] is not a whole number`);
    profile.numCtx = Number(numCtx);
  }
  const budget = parseBudget(d, get, fail);
  if (budget) profile.budget = budget;
  return profile;
}

/** `budget` (US dollars, `$` optional) and `budget_tokens` of a section, checked. */
function parseBudget(
  d: Draft,
  get: (key: string) => string | undefined,
  fail: (line: number, problem: string) => never,
): Profile["budget"] {
  const usd = get("budget");
  const tokens = get("budget_tokens");
  if (usd === undefined && tokens === undefined) return undefined;
  const budget: NonNullable<Profile["budget"]> = {};
  if (usd !== undefined) {
    const n = Number(usd.replace(/^\$/, ""));
    if (!/^\$?\d*\.?\d+$/.test(usd) || !(n > 0))
      fail(
        d.values.get("budget")!.line,
        `budget in [${d.name}] is US dollars above 0 (e.g. 2.50), not '${usd}'`,
      );
    budget.usd = n;
  }
  if (tokens !== undefined) {
    if (!/^\d+$/.test(tokens) || Number(tokens) === 0)
      fail(d.values.get("budget_tokens")!.line, `budget_tokens in [${d.name}] is a whole number above 0`);
    budget.tokens = Number(tokens);
  }
  return budget;
}

/** Reads and parses a backends.conf file. */
export async function loadBackendsConf(file: string): Promise<BackendsConf> {
  return parseBackendsConf(await readFile(file, "utf8"), file);
}
