import { parseArgs } from "node:util";
import { PROFILE_NAME } from "../names.js";

/** Where `ollie feed` takes its lines from. */
export type FeedSource =
  | { kind: "command"; argv: string[] }
  | { kind: "file"; path: string }
  | { kind: "stdin" };

/** `ollie feed SESSION [options] [-- CMD ARGS...]`, as parsed. */
export interface FeedInvocation {
  command: "feed";
  session: string;
  source: FeedSource;
  windowMs: number;
  maxLines: number;
  maxBytes: number;
}

/** `ollie observe SESSION [PROFILE] [options]`, as parsed. */
export interface ObserveInvocation {
  command: "observe";
  session: string;
  profile: string;
  windowMs: number;
  /** Keep the observer session when observing ends. */
  keep: boolean;
  /** The topic filter written to the observed session's `events`. */
  topics: string;
}

/** The defaults, in USAGE and the README too. */
export const FEED_DEFAULTS = { windowSeconds: 2, maxLines: 200, maxBytes: 16_384 } as const;
export const OBSERVE_DEFAULTS = {
  windowSeconds: 5,
  profile: "observer",
  topics: "agent.*.user agent.*.tool agent.*.turn agent.*.error agent.*.maxsteps agent.*.limitretry",
} as const;

const FEED_OPTIONS = {
  window: { type: "string" },
  "max-lines": { type: "string" },
  "max-bytes": { type: "string" },
  file: { type: "string" },
} as const;

const OBSERVE_OPTIONS = {
  window: { type: "string" },
  keep: { type: "boolean" },
  topics: { type: "string" },
} as const;

/** Reads `ollie feed`'s arguments; throws (a usage mistake) when they are wrong. */
export function parseFeed(args: string[]): FeedInvocation {
  // Everything after `--` is the command, options that look like ours included.
  const end = args.indexOf("--");
  const own = end < 0 ? args : args.slice(0, end);
  const argv = end < 0 ? [] : args.slice(end + 1);
  const { values, positionals } = parseArgs({ args: own, options: FEED_OPTIONS, allowPositionals: true });
  const [session, ...extra] = positionals;
  if (!session) throw new Error("feed needs a session");
  if (extra.length > 0) throw new Error(`feed takes its command after --: ${extra.join(" ")}`);
  if (end >= 0 && argv.length === 0) throw new Error("feed needs a command after --");
  if (values.file !== undefined && argv.length > 0)
    throw new Error("feed takes --file or a command, not both");
  const source: FeedSource =
    values.file !== undefined
      ? { kind: "file", path: values.file }
      : argv.length > 0
        ? { kind: "command", argv }
        : { kind: "stdin" };
  return {
    command: "feed",
    session,
    source,
    windowMs: seconds("window", values.window, FEED_DEFAULTS.windowSeconds),
    maxLines: count("max-lines", values["max-lines"], FEED_DEFAULTS.maxLines, 1, 100_000),
    // A prompt is at most 1 MiB; half of it leaves room for the header and a person's own prompts.
    maxBytes: count("max-bytes", values["max-bytes"], FEED_DEFAULTS.maxBytes, 1024, 524_288),
  };
}

/** Reads `ollie observe`'s arguments; throws (a usage mistake) when they are wrong. */
export function parseObserve(args: string[]): ObserveInvocation {
  const { values, positionals } = parseArgs({ args, options: OBSERVE_OPTIONS, allowPositionals: true });
  const [session, profile = OBSERVE_DEFAULTS.profile, ...extra] = positionals;
  if (!session) throw new Error("observe needs a session");
  if (extra.length > 0) throw new Error("observe takes a session and at most a profile");
  if (!PROFILE_NAME.test(profile) || profile.includes(".."))
    throw new Error(`'${profile}' is not a profile name`);
  const topics = values.topics ?? OBSERVE_DEFAULTS.topics;
  if (!topics.trim()) throw new Error("--topics needs at least one pattern");
  return {
    command: "observe",
    session,
    profile,
    windowMs: seconds("window", values.window, OBSERVE_DEFAULTS.windowSeconds),
    keep: values.keep ?? false,
    // The observer ends when the observed session does, so its end always passes.
    topics: `${topics} session.kill`,
  };
}

/** A number of seconds (a fraction allowed, 0 to an hour) as milliseconds. */
function seconds(option: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 3600)
    throw new Error(`--${option} takes seconds from 0 to 3600, not ${JSON.stringify(value)}`);
  return Math.round(n * 1000);
}

/** A whole number from `min` to `max`. */
function count(
  option: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new Error(`--${option} takes a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  return n;
}
