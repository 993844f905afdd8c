import { parseArgs } from "node:util";
import { isSessionId } from "@ollie/client";
import { checkProfileName } from "../names.js";

/** `ollie ask [--agent P] [--keep] [SESSION] TEXT...`, as parsed. */
export interface AskInvocation {
  command: "ask";
  session: string | undefined;
  text: string;
  /** The profile of a new session (undefined: the directory's default, see DIRECTORY_PROFILE). */
  agent: string | undefined;
  /** Keep the new session after a turn that ended well. */
  keep: boolean;
}

/** `ollie sh [--agent P] [SESSION]`, as parsed. */
export interface ShInvocation {
  command: "sh";
  session: string | undefined;
  agent: string | undefined;
}

/** `ollie rm [-f] SESSION...`, as parsed. */
export interface RmInvocation {
  command: "rm";
  sessions: string[];
  /** End a session even while something runs in it. */
  force: boolean;
}

/** `ollie prune [--older DURATION]`, as parsed. */
export interface PruneInvocation {
  command: "prune";
  /** Only sessions in which nothing ran for this many seconds (0: every idle one). */
  olderSeconds: number;
  /** What `--older` said, for saying it back. */
  older: string | undefined;
}

const ASK_OPTIONS = { agent: { type: "string" }, keep: { type: "boolean" } } as const;

/**
 * Reads ask's arguments. Its options come first: from the first word that is not one (or after `--`), the
 * words are the prompt, whatever they look like — `ollie ask what does -v do` asks that.
 */
export function parseAsk(args: string[]): AskInvocation {
  const { tokens } = parseArgs({
    args,
    options: ASK_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const first = tokens.find((t) => t.kind !== "option");
  const end = first?.index ?? args.length;
  const { values } = parseArgs({ args: args.slice(0, end), options: ASK_OPTIONS });
  const words = args.slice(first?.kind === "option-terminator" ? end + 1 : end);
  const session = words.length > 1 && isSessionId(words[0]!) ? words.shift() : undefined;
  const text = words.join(" ").trim();
  if (!text) throw new Error("ask needs a prompt");
  const agent = profileOption(values.agent);
  if (session !== undefined && (agent !== undefined || values.keep))
    throw new Error("--agent and --keep are for a new session: ask SESSION prompts a session that is there");
  return { command: "ask", session, text, agent, keep: values.keep ?? false };
}

export function parseSh(args: string[]): ShInvocation {
  const { values, positionals } = parseArgs({
    args,
    options: { agent: { type: "string" } },
    allowPositionals: true,
  });
  if (positionals.length > 1) throw new Error("sh takes at most 1 operand(s)");
  const agent = profileOption(values.agent);
  if (positionals[0] !== undefined && agent !== undefined)
    throw new Error("--agent is for a new session: sh SESSION talks to a session that is there");
  return { command: "sh", session: positionals[0], agent };
}

export function parseRm(args: string[]): RmInvocation {
  const { values, positionals } = parseArgs({
    args,
    options: { f: { type: "boolean" }, force: { type: "boolean" } },
    allowPositionals: true,
  });
  if (positionals.length === 0) throw new Error("rm needs a session (ollie ls lists them)");
  return { command: "rm", sessions: positionals, force: (values.f || values.force) ?? false };
}

export function parsePrune(args: string[]): PruneInvocation {
  const { values, positionals } = parseArgs({ args, options: { older: { type: "string" } } });
  if (positionals.length > 0) throw new Error("prune takes no operands");
  const older = values.older;
  return { command: "prune", olderSeconds: older === undefined ? 0 : durationSeconds(older), older };
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** A duration as people write it — `90s`, `30m`, `12h`, `7d`, `2w`, or a number of seconds — in seconds. */
export function durationSeconds(text: string): number {
  const match = /^(\d{1,9})([smhdw]?)$/.exec(text.trim());
  if (!match) throw new Error(`'${text}' is not a duration (a number and s, m, h, d or w: 30m, 7d)`);
  return Number(match[1]) * UNITS[match[2] || "s"]!;
}

function profileOption(agent: string | undefined): string | undefined {
  return agent === undefined ? undefined : checkProfileName(agent);
}
