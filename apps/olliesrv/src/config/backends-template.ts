import type { ProviderType } from "@ollie/backends";

/**
 * The provider types of @ollie/backends (its PROVIDER_TYPES, which a test holds this to): written out so
 * that the `ollie` command reads its arguments without loading the providers.
 */
export const TEMPLATE_TYPES: readonly ProviderType[] = [
  "openai",
  "anthropic",
  "ollama",
  "gemini",
  "copilot",
  "kiro",
  "demo",
];

/** A profile of the shipped backends.conf, on or commented out: what `ollie init PROVIDER` can turn on. */
export interface TemplateProfile {
  /** Its `[section]`: the profile's name once written (`local`, `claude`, …). */
  section: string;
  /** The word `ollie init` takes for it: the provider type when only this profile has it, else the section. */
  provider: string;
  type: ProviderType;
  /** Its `key = value` lines as the template has them (url, model, key_env, header…). */
  values: ReadonlyMap<string, string>;
}

/** What `ollie init` changes in the profile it turns on. */
export interface TemplateChoices {
  url?: string | undefined;
  model?: string | undefined;
  /** The variable the key is read from (replaces the template's key line). */
  keyEnv?: string | undefined;
  /** A command that prints the key (replaces the template's key line). */
  keyCmd?: string | undefined;
  /** No key at all (a local server). */
  noKey?: boolean | undefined;
}

const HEADER = /^(#\s*)?\[([\w.-]+)\]\s*$/;
const KEY_LINE = /^(#\s*)?([a-z_]+)\s*=\s*(.*?)\s*$/;
const CREDENTIAL_KEYS = new Set(["key", "key_env", "key_cmd"]);

interface Block {
  section: string;
  /** Its lines, from the header to the line before the next blank one. */
  from: number;
  to: number;
  values: Map<string, string>;
}

/** The profile blocks of a backends.conf text, commented out or not: a `[section]` line and the lines after it. */
function blocks(lines: readonly string[]): Block[] {
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const header = HEADER.exec(lines[i]!.trim());
    if (!header) continue;
    const block: Block = { section: header[2]!, from: i, to: i, values: new Map() };
    for (let j = i + 1; j < lines.length && lines[j]!.trim() !== ""; j++) {
      block.to = j;
      const kv = KEY_LINE.exec(lines[j]!.trim());
      if (kv && !block.values.has(kv[2]!)) block.values.set(kv[2]!, kv[3]!);
    }
    found.push(block);
    i = block.to;
  }
  return found;
}

/** The profiles the template offers, in its order, each with the word `ollie init` knows it by. */
export function templateProfiles(text: string): TemplateProfile[] {
  const found = blocks(text.split("\n")).filter((b) =>
    TEMPLATE_TYPES.includes(b.values.get("type") as ProviderType),
  );
  const ofType = (type: string) => found.filter((b) => b.values.get("type") === type).length;
  return found.map((b) => {
    const type = b.values.get("type") as ProviderType;
    const byType = ofType(type) === 1 && !found.some((o) => o !== b && o.section === type);
    return { section: b.section, provider: byType ? type : b.section, type, values: b.values };
  });
}

/** The template profile a word names: its provider word or its section (`ollama` or `local`). */
export function templateProfile(text: string, word: string): TemplateProfile | undefined {
  const profiles = templateProfiles(text);
  return profiles.find((p) => p.provider === word) ?? profiles.find((p) => p.section === word);
}

/**
 * The template with one profile turned on — its lines uncommented, with `choices` applied — and every other
 * profile commented out, `default =` naming it. The comments stay, so the file still explains itself.
 */
export function turnOn(text: string, chosen: TemplateProfile, choices: TemplateChoices = {}): string {
  const lines = text.split("\n");
  const found = blocks(lines);
  const blockAt = (i: number) => found.find((b) => i >= b.from && i <= b.to);
  const credential =
    choices.keyCmd !== undefined
      ? `key_cmd = ${choices.keyCmd}`
      : choices.keyEnv !== undefined
        ? `key_env = ${choices.keyEnv}`
        : undefined;
  const out: string[] = [];
  let sawDefault = false;
  let credentialDone = false;
  for (const [i, line] of lines.entries()) {
    const block = blockAt(i);
    if (!block) {
      if (/^default\s*=/.test(line)) {
        out.push(`default = ${chosen.section}`);
        sawDefault = true;
      } else out.push(line);
      continue;
    }
    const bare = line.trim().replace(/^#\s*/, "");
    const setting = HEADER.test(line.trim()) || KEY_LINE.test(line.trim());
    if (block.section !== chosen.section) {
      out.push(setting && !line.trim().startsWith("#") ? `# ${line}` : line);
      continue;
    }
    if (!setting) {
      out.push(line);
      continue;
    }
    const key = KEY_LINE.exec(bare)?.[2];
    if (key !== undefined && CREDENTIAL_KEYS.has(key)) {
      if (choices.noKey || credentialDone) continue;
      credentialDone = true;
      out.push(credential ?? bare);
    } else if (key === "url" && choices.url !== undefined) out.push(`url = ${choices.url}`);
    else if (key === "model" && choices.model !== undefined) out.push(`model = ${choices.model}`);
    else out.push(bare);
    if (key === "type" && choices.url !== undefined && !block.values.has("url"))
      out.push(`url = ${choices.url}`);
    if (key === "type" && choices.model !== undefined && !block.values.has("model"))
      out.push(`model = ${choices.model}`);
    if (i === block.to && !credentialDone && credential !== undefined && !choices.noKey) {
      out.push(credential);
      credentialDone = true;
    }
  }
  return sawDefault ? out.join("\n") : `default = ${chosen.section}\n${out.join("\n")}`;
}
