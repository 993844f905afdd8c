import { costOf } from "@ollie/backends";
import { z } from "zod";

/** What a session may spend: US dollars, tokens (input and output), or both. */
export interface BudgetLimit {
  usd?: number;
  tokens?: number;
}

/** A session's budget as its file saves it: the limit, if one is set, and what has been spent. */
export const savedBudgetSchema = z.object({
  usd: z.number().positive().optional(),
  tokens: z.number().int().positive().optional(),
  spentUsd: z.number().nonnegative(),
  spentTokens: z.number().int().nonnegative(),
});
export type SavedBudget = z.infer<typeof savedBudgetSchema>;

const dollars = (usd: number) => `$${usd.toFixed(4)}`;

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

  charge(usd: number, tokens: number): void {
    this.spentUsd += usd;
    this.spentTokens += tokens;
  }

  /** What is left of each limit set (none left: 0). */
  left(): BudgetLimit {
    return {
      ...(this.limit.usd !== undefined && { usd: Math.max(0, this.limit.usd - this.spentUsd) }),
      ...(this.limit.tokens !== undefined && { tokens: Math.max(0, this.limit.tokens - this.spentTokens) }),
    };
  }

  /**
   * Why a request of `inputTokens` to `model` may not be made: the budget is spent, or the request's input
   * alone would pass it. Undefined when it may.
   */
  refusal(model: string, inputTokens: number): string | undefined {
    const { usd, tokens } = this.limit;
    if (tokens !== undefined) {
      if (this.spentTokens >= tokens) return `${tokens} tokens are spent (${this.spentTokens})`;
      if (this.spentTokens + inputTokens > tokens)
        return `the next request's ${inputTokens} input tokens would pass ${tokens} (${this.spentTokens} spent)`;
    }
    if (usd !== undefined) {
      if (this.spentUsd >= usd) return `${dollars(usd)} is spent (${dollars(this.spentUsd)})`;
      const input = costOf(model, {
        inputTokens,
        outputTokens: 0,
        cachedInputTokens: 0,
        cacheCreationTokens: 0,
      });
      if (this.spentUsd + input > usd)
        return `the next request's input (${dollars(input)}) would pass ${dollars(usd)} (${dollars(this.spentUsd)} spent)`;
    }
    return undefined;
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
      "counts=the model requests of this session's agents and their compactions, and those of every session made from it",
      "",
    ].join("\n");
  }

  toSaved(): SavedBudget {
    return { ...this.limit, spentUsd: this.spentUsd, spentTokens: this.spentTokens };
  }
}

/**
 * `budget USD` (`$` optional), `budget tokens N`, `budget off`: the limit a ctl command sets (`off` takes
 * both away). Throws an Error saying what it takes.
 */
export function parseBudget(words: string, current: BudgetLimit): BudgetLimit {
  const [first = "", second, ...more] = words.trim().split(/\s+/);
  const usage = "budget USD, budget tokens N or budget off";
  if (more.length > 0) throw new Error(usage);
  if (first === "off" && second === undefined) return {};
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
