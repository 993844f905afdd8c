import { type BudgetedRequest, budgetRefusal, type SpendingLimit } from "@ollie/agent-core";
import { z } from "zod";
import { dollars } from "../dollars.js";

/** What a session may spend: US dollars, tokens (input and output), or both. */
export type BudgetLimit = SpendingLimit;

/** The fractions of a limit at which a session's events warn that it is being spent. */
export const BUDGET_WARNINGS: readonly number[] = [0.5, 0.8];

/** A fraction of a limit a charge passed: a warning below 1, the limit itself at 1. */
export interface BudgetMark {
  fraction: number;
  /** `80% of $2.0000 is spent ($1.6100)`; at the limit, as a refusal says it: `$2.0000 is spent ($2.0100)`. */
  message: string;
}

/** A session's budget as its file saves it: the limit, if one is set, and what has been spent. */
export const savedBudgetSchema = z.object({
  usd: z.number().positive().optional(),
  tokens: z.number().int().positive().optional(),
  spentUsd: z.number().nonnegative(),
  spentTokens: z.number().int().nonnegative(),
});
export type SavedBudget = z.infer<typeof savedBudgetSchema>;

/**
 * What a session has spent — its agents' requests, their compactions, and those of every session made from
 * it, charged to it as they are made — and what it may spend. Spending is counted whether or not a limit is
 * set, so that a limit set later counts what came before.
 */
export class SessionBudget {
  limit: BudgetLimit = {};
  spentUsd: number;
  spentTokens: number;

  constructor(saved?: SavedBudget) {
    this.spentUsd = saved?.spentUsd ?? 0;
    this.spentTokens = saved?.spentTokens ?? 0;
    if (saved?.usd !== undefined) this.limit.usd = saved.usd;
    if (saved?.tokens !== undefined) this.limit.tokens = saved.tokens;
  }

  /** Adds a request's cost and tokens; resolves the warnings it passed, and the limit it reached. */
  charge(usd: number, tokens: number): BudgetMark[] {
    const before = { usd: this.spentUsd, tokens: this.spentTokens };
    this.spentUsd += usd;
    this.spentTokens += tokens;
    const after = { usd: this.spentUsd, tokens: this.spentTokens };
    const marks: BudgetMark[] = [];
    for (const unit of ["usd", "tokens"] as const) {
      const limit = this.limit[unit];
      if (limit === undefined) continue;
      const say = (n: number) => (unit === "usd" ? dollars(n) : `${n} tokens`);
      const passed = (at: number) => before[unit] < at && after[unit] >= at;
      for (const fraction of BUDGET_WARNINGS)
        if (passed(limit * fraction) && after[unit] < limit)
          marks.push({
            fraction,
            message: `${fraction * 100}% of ${say(limit)} is spent (${say(after[unit])})`,
          });
      if (passed(limit))
        marks.push({
          fraction: 1,
          message:
            unit === "usd"
              ? `${say(limit)} is spent (${say(after[unit])})`
              : `${limit} tokens are spent (${after[unit]})`,
        });
    }
    return marks;
  }

  /** What is left of each limit set (none left: 0). */
  left(): BudgetLimit {
    return {
      ...(this.limit.usd !== undefined && { usd: Math.max(0, this.limit.usd - this.spentUsd) }),
      ...(this.limit.tokens !== undefined && { tokens: Math.max(0, this.limit.tokens - this.spentTokens) }),
    };
  }

  /** Why `request` may not be made under this budget (see budgetRefusal); undefined when it may. */
  refusal(request: BudgetedRequest): string | undefined {
    return budgetRefusal(this.limit, { usd: this.spentUsd, tokens: this.spentTokens }, request);
  }

  /** The `budget` file: `key=value` lines. */
  text(): string {
    const left = this.left();
    return [
      `usd=${this.limit.usd === undefined ? "none" : this.limit.usd.toFixed(4)}`,
      `usd_spent=${this.spentUsd.toFixed(4)}`,
      `usd_left=${left.usd === undefined ? "-" : left.usd.toFixed(4)}`,
      `tokens=${this.limit.tokens ?? "none"}`,
      `tokens_spent=${this.spentTokens}`,
      `tokens_left=${left.tokens ?? "-"}`,
      `warn_at=${BUDGET_WARNINGS.map((f) => `${f * 100}%`).join(",")}`,
      "counts=the model requests of this session's agents and their compactions, and those of every session made from it",
      "",
    ].join("\n");
  }

  toSaved(): SavedBudget {
    return { ...this.limit, spentUsd: this.spentUsd, spentTokens: this.spentTokens };
  }
}

/**
 * `why` a budget refuses, said to an agent of session `to`: of its own session's budget, or of the session
 * `owner` it was made from.
 */
export function budgetReason(owner: string, to: string, why: string): string {
  return owner === to
    ? `this session's budget: ${why}`
    : `the budget of session ${owner}, which made this one: ${why}`;
}

/**
 * `budget USD` (`$` optional; `budget usd USD` too), `budget tokens N`, `budget usd off`, `budget tokens off`,
 * `budget off`: the limit a ctl command sets (`off` takes both away). Throws an Error saying what it takes.
 */
export function parseBudget(words: string, current: BudgetLimit): BudgetLimit {
  const [first = "", second, ...more] = words.trim().split(/\s+/);
  const usage = "budget USD, budget tokens N or budget off";
  if (more.length > 0) throw new Error(usage);
  if (first === "off" && second === undefined) return {};
  if (first === "usd" && second === "off")
    return { ...(current.tokens !== undefined && { tokens: current.tokens }) };
  if (first === "usd") return parseBudget(second ?? "", current);
  if (first === "tokens") {
    if (second === "off") return { ...(current.usd !== undefined && { usd: current.usd }) };
    const n = Number(second);
    if (!Number.isInteger(n) || n <= 0)
      throw new Error(`budget tokens takes a whole number above 0, not '${second ?? ""}'`);
    return { ...current, tokens: n };
  }
  const usd = Number(first.replace(/^\$/, ""));
  if (second !== undefined || first === "" || !Number.isFinite(usd) || usd <= 0)
    throw new Error(`${usage}; a budget in dollars is a number above 0, not '${words.trim()}'`);
  return { ...current, usd };
}
