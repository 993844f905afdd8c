import { ReplyFormatError } from "../errors.js";

/** Tokens, requests and cost over a span (a turn, a session). `inputTokens` includes the cached ones. */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheCreationTokens: number;
  requests: number;
  costUsd: number;
}

/** An agent's `usage`: each span is absent until a request was made in it. */
export interface AgentUsage {
  /** The running turn's, or the last one's. */
  turn?: UsageTotals;
  session?: UsageTotals;
  /** What the compaction summaries used: a part of `session`. */
  compaction?: UsageTotals;
}

/** What an agent cost, in US dollars, as its `cost` file says it (to four places). */
export interface AgentCost {
  session: number;
  lastTurn: number;
  /** What compaction summaries cost: a part of `session`. */
  compaction: number;
}

/** How full the next request is against the model's context window (`ctxsz`). */
export interface ContextSize {
  tokens: number;
  window: number;
  /** tokens / window, 0 to 1 (or more). */
  fraction: number;
}

const TOTALS: ReadonlyArray<keyof UsageTotals> = [
  "inputTokens",
  "outputTokens",
  "cachedInputTokens",
  "cacheCreationTokens",
  "requests",
  "costUsd",
];

function totals(value: unknown): value is UsageTotals {
  return (
    typeof value === "object" &&
    value !== null &&
    TOTALS.every((key) => typeof (value as Record<string, unknown>)[key] === "number")
  );
}

export function parseUsage(text: string, path: string): AgentUsage {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ReplyFormatError(path, text, "not JSON");
  }
  const usage: AgentUsage = {};
  for (const span of ["turn", "session", "compaction"] as const) {
    const value = (json as Record<string, unknown> | null)?.[span];
    if (value === undefined) continue;
    if (!totals(value)) throw new ReplyFormatError(path, text, `its ${span} is not usage totals`);
    usage[span] = pick(value);
  }
  return usage;
}

/** Only the totals' own fields: what a later olliesrv adds is not passed on untyped. */
const pick = (t: UsageTotals): UsageTotals =>
  Object.fromEntries(TOTALS.map((key) => [key, t[key]])) as unknown as UsageTotals;

/** `$0.0123 session`, `$0.0042 last turn`, `$0.0000 compaction (part of the session)`. */
export function parseCost(text: string, path: string): AgentCost {
  const amount = (line: string) => {
    const m = /^\$(\d+(?:\.\d+)?) /.exec(line);
    return m ? Number(m[1]) : undefined;
  };
  const [session, lastTurn, compaction] = text.split("\n").map(amount);
  if (session === undefined || lastTurn === undefined)
    throw new ReplyFormatError(path, text, "not an agent's cost");
  return { session, lastTurn, compaction: compaction ?? 0 };
}

/** `TOKENS/WINDOW PERCENT%`. */
export function parseContextSize(text: string, path: string): ContextSize {
  const m = /^(\d+)\/(\d+) /.exec(text);
  if (!m) throw new ReplyFormatError(path, text, "not a context size");
  const tokens = Number(m[1]);
  const window = Number(m[2]);
  return { tokens, window, fraction: window > 0 ? tokens / window : 0 };
}
