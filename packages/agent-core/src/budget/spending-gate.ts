import type { UsageTotals } from "../history/usage-meter.js";
import { budgetRefusal, type SpendingLimit } from "./budget-refusal.js";

/** The model request a turn (or a compaction) is about to make, as a spending gate sees it. */
export interface PlannedRequest {
  /** The provider it goes to (`openai`, `copilot`…): a subscription's requests cost no dollars. */
  provider: string;
  /** The model it goes to. */
  model: string;
  /** Its input, as the context meter has it (the provider's last count and estimates since). */
  inputTokens: number;
  /** What this agent has spent over its session so far. */
  spent: Readonly<UsageTotals>;
  /** A turn's request, or the summary request of a compaction. */
  purpose: "turn" | "compaction";
}

/**
 * Decides, before each model request of a turn and each compaction, whether it may be made
 * (AgentOptions.spending). A reason ends the turn in `budget` instead (a compaction is not made), the
 * request not sent; undefined lets it go. It is asked synchronously at each request, so it must answer
 * from what it holds: a daemon charging many agents to one budget keeps that total itself and answers
 * from it.
 */
export interface SpendingGate {
  beforeRequest(request: PlannedRequest): string | undefined;
}

/**
 * A gate that holds one agent to `limit` over its session: a request is not made once the spending has
 * reached the limit, nor when its input alone would pass it, nor — in dollars — to a model that has no
 * price in dollars unless a limit in tokens holds it.
 */
export function spendingLimit(limit: SpendingLimit): SpendingGate {
  return {
    beforeRequest({ provider, model, inputTokens, spent }) {
      const refused = budgetRefusal(
        limit,
        { usd: spent.costUsd, tokens: spent.inputTokens + spent.outputTokens },
        { provider, model, inputTokens },
      );
      return refused && `this agent's budget: ${refused}`;
    },
  };
}
