import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { ProviderType } from "@ollie/backends";
import {
  type TemplateChoices,
  type TemplateProfile,
  templateProfile,
  templateProfiles,
} from "../config/backends-template.js";
import { DEFAULTS } from "../paths.js";

/** `ollie init [PROVIDER] [options]`, as parsed. */
export interface InitInvocation {
  command: "init";
  /** The template profile to turn on; undefined: list them. */
  profile: TemplateProfile | undefined;
  choices: TemplateChoices;
  force: boolean;
  check: boolean;
  /** `--help`: print the usage (and the providers), nothing else. */
  help: boolean;
}

export const INIT_USAGE = `usage: ollie init PROVIDER [--url URL] [--model MODEL] [--key-env VAR | --key-cmd CMD | --no-key]
                  [--force] [--no-check]
       ollie init [-h | --help]
Writes $XDG_CONFIG_HOME/ollie/backends.conf from the shipped one with PROVIDER's profile turned on (and made
the default), tells a running olliesrv to read it, and checks that the backend answers by listing its models.
An existing file is kept unless --force, or unless it holds only the offline demo (the old one is then kept as
backends.conf.bak). --key-env names the variable olliesrv reads the key from (set where olliesrv starts);
--key-cmd a command that prints it, run when olliesrv needs the key (no restart needed). A backends.conf that
is a symbolic link is written through (its target gets the new text). Without PROVIDER, lists the providers
('ollie init demo': an offline demo, no key and no network).
`;

const INIT_OPTIONS = {
  url: { type: "string" },
  model: { type: "string" },
  "key-env": { type: "string" },
  "key-cmd": { type: "string" },
  "no-key": { type: "boolean" },
  force: { type: "boolean" },
  "no-check": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** Where the providers that take no key get their credential: a sign-in. */
export const SIGN_IN: Partial<Record<ProviderType, string>> = {
  copilot: "'ollie login copilot' signs in to GitHub (or a Copilot editor plugin's token is used)",
  kiro: "the Kiro IDE's sign-in is used, or 'ollie login kiro' signs in with an AWS Builder ID",
};

/** Control characters (a newline would add a line of its own to backends.conf). */
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}]/u;

/** The shipped backends.conf: the template `ollie init` writes from. */
export function template(): string {
  return readFileSync(join(DEFAULTS, "backends.conf"), "utf8");
}

/** Reads `ollie init`'s arguments; throws (a usage mistake) when they are wrong. */
export function parseInit(args: string[]): InitInvocation {
  const { values, positionals } = parseArgs({ args, options: INIT_OPTIONS, allowPositionals: true });
  const help = values.help ?? false;
  const base = { command: "init", force: values.force ?? false, check: !values["no-check"], help } as const;
  if (help) return { ...base, profile: undefined, choices: {} };
  if (positionals.length > 1) throw new Error("init takes one provider");
  const keys = [values["key-env"], values["key-cmd"], values["no-key"]].filter((v) => v !== undefined);
  if (keys.length > 1) throw new Error("init takes one of --key-env, --key-cmd and --no-key");
  for (const option of ["url", "model", "key-env", "key-cmd"] as const) {
    const value = values[option];
    if (value === undefined) continue;
    if (value.trim() === "") throw new Error(`--${option} needs a value`);
    if (CONTROL.test(value))
      throw new Error(
        `--${option} takes one line of text, without control characters: ${JSON.stringify(value)}`,
      );
  }
  if (values.url !== undefined && !/^https?:\/\/\S+$/.test(values.url))
    throw new Error(`--url takes an http(s) URL, not '${values.url}'`);
  const variable = values["key-env"];
  if (variable !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
    throw new Error(
      `--key-env takes the name of an environment variable (letters, digits, '_'), not '${variable}'`,
    );
  const word = positionals[0];
  if (word === undefined) {
    if (Object.keys(values).length > 0) throw new Error("init needs a provider for its options");
    return { ...base, profile: undefined, choices: {} };
  }
  const text = template();
  const profile = templateProfile(text, word);
  if (!profile)
    throw new Error(
      `unknown provider '${word}' (${templateProfiles(text)
        .map((p) => p.provider)
        .join(", ")})`,
    );
  return {
    ...base,
    profile,
    choices: {
      url: values.url,
      model: values.model,
      keyEnv: values["key-env"],
      keyCmd: values["key-cmd"],
      noKey: values["no-key"],
    },
  };
}

/** The providers, one line each: the word, then what turning it on gives. */
export function providerList(): string {
  const profiles = templateProfiles(template());
  const width = Math.max(...profiles.map((p) => p.provider.length));
  const lines = profiles.map((p) => {
    const v = p.values;
    const url = v.get("url");
    const key =
      p.type === "demo"
        ? "offline: no key, no network"
        : v.get("key_env")
          ? `key in $${v.get("key_env")}`
          : SIGN_IN[p.type]
            ? `signed in with 'ollie login ${p.type}'`
            : "no key";
    return `  ${p.provider.padEnd(width)}  [${p.section}] ${p.type}${url ? ` at ${url}` : ""}, model ${v.get("model")}, ${key}`;
  });
  return `providers (ollie init PROVIDER):\n${lines.join("\n")}\n`;
}
