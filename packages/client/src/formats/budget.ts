import { keyValues } from "./key-values.js";

/** A session's budget (its `budget` file): each limit set, what has been spent, and what is left. */
export interface SessionBudget {
  /** The limit in US dollars, if one is set. */
  usd: number | undefined;
  usdSpent: number;
  /** What is left of the limit in dollars (0 when spent); undefined without one. */
  usdLeft: number | undefined;
  /** The limit in tokens (input and output), if one is set. */
  tokens: number | undefined;
  tokensSpent: number;
  tokensLeft: number | undefined;
  /** The fractions of a limit at which the session's events warn (`session.budget`). */
  warnAt: number[];
}

const limit = (value: string | undefined) =>
  value === undefined || value === "none" || value === "-" ? undefined : Number(value);

export function parseBudget(text: string): SessionBudget {
  const kv = keyValues(text);
  return {
    usd: limit(kv.usd),
    usdSpent: Number(kv.usd_spent ?? 0),
    usdLeft: limit(kv.usd_left),
    tokens: limit(kv.tokens),
    tokensSpent: Number(kv.tokens_spent ?? 0),
    tokensLeft: limit(kv.tokens_left),
    warnAt: (kv.warn_at ?? "")
      .split(",")
      .filter(Boolean)
      .map((p) => Number.parseFloat(p) / 100),
  };
}
