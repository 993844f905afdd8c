import { costOf } from "@ollie/backends";
import type { UsageTotals } from "../history/usage-meter.js";

/** The model request a turn is about to make, as a spending gate sees it. */
export interface PlannedRequest {
  /** The model it goes to. */
  model: string;
  /** Its input, as the context meter has it (the provider's last count and estimates since). */
  inputTokens: number;
  /** What this agent has spent over its session so far. */
  spent: Readonly<UsageTotals>;
}

/**
 * Decides, before each model request of a turn, whether the turn may make it (AgentOptions.spending). A
 * reason ends the turn in `budget` instead, the request not made; undefined lets it go. It is asked
 * synchronously at each request, so it must answer from what it holds: a daemon charging many agents to one
 * budget keeps that total itself and answers from it.
 */
export interface SpendingGate {
  beforeRequest(request: PlannedRequest): string | undefined;
}

/** A budget of one agent: dollars (by the price table, or what the provider reported), tokens, or both. */
export interface SpendingLimit {
  /** US dollars over the agent's session. */
  usd?: number;
  /** Input and output tokens over the agent's session. */
  tokens?: number;
}

const dollars = (usd: number) => `$${usd.toFixed(4)}`;

/**
 * A gate that holds one agent to `limit` over its session: a request is not made once the spending has
 * reached the limit, nor when its input alone would pass it.
 */
export function spendingLimit(limit: SpendingLimit): SpendingGate {
  return {
    beforeRequest({ model, inputTokens, spent }) {
      if (limit.tokens !== undefined) {
        const used = spent.inputTokens + spent.outputTokens;
        if (used >= limit.tokens) return `the budget of ${limit.tokens} tokens is spent (${used})`;
        if (used + inputTokens > limit.tokens)
          return `the next request's ${inputTokens} input tokens would pass the budget of ${limit.tokens} tokens (${used} spent)`;
      }
      if (limit.usd !== undefined) {
        if (spent.costUsd >= limit.usd)
          return `the budget of ${dollars(limit.usd)} is spent (${dollars(spent.costUsd)})`;
        const input = costOf(model, {
          inputTokens,
          outputTokens: 0,
          cachedInputTokens: 0,
          cacheCreationTokens: 0,
        });
        if (spent.costUsd + input > limit.usd)
          return `the next request's input (${dollars(input)}) would pass the budget of ${dollars(limit.usd)} (${dollars(spent.costUsd)} spent)`;
      }
      return undefined;
    },
  };
}
