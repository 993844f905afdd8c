import { costOf, pricedInDollars } from "@ollie/backends";

/** A budget: US dollars (at the price table's rates, or what the provider reported), tokens, or both. */
export interface SpendingLimit {
  /** US dollars. */
  usd?: number;
  /** Input and output tokens. */
  tokens?: number;
}

/** What has been spent against a budget. */
export interface Spent {
  usd: number;
  tokens: number;
}

/** The model request a budget is asked about. */
export interface BudgetedRequest {
  provider: string;
  model: string;
  /** Its input, as measured before it is sent. */
  inputTokens: number;
}

const dollars = (usd: number) => `$${usd.toFixed(4)}`;

/**
 * Why `request` may not be made under `limit` with `spent` already gone: the budget is spent, the
 * request's input alone would pass it, or the budget is in dollars and the model has no price in
 * dollars (a subscription, a local or unlisted model) and no limit in tokens holds it instead. Undefined
 * when it may be made.
 */
export function budgetRefusal(
  limit: SpendingLimit,
  spent: Spent,
  request: BudgetedRequest,
): string | undefined {
  const { usd, tokens } = limit;
  if (tokens !== undefined) {
    if (spent.tokens >= tokens) return `${tokens} tokens are spent (${spent.tokens})`;
    if (spent.tokens + request.inputTokens > tokens)
      return `the next request's ${request.inputTokens} input tokens would pass ${tokens} (${spent.tokens} spent)`;
  }
  if (usd === undefined) return undefined;
  if (spent.usd >= usd) return `${dollars(usd)} is spent (${dollars(spent.usd)})`;
  if (!pricedInDollars(request.provider, request.model))
    return tokens === undefined
      ? `${request.model} (${request.provider}) has no price in dollars, so a budget in dollars cannot hold it: set one in tokens`
      : undefined;
  const input = costOf(request.model, {
    inputTokens: request.inputTokens,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheCreationTokens: 0,
  });
  if (spent.usd + input > usd)
    return `the next request's input (${dollars(input)}) would pass ${dollars(usd)} (${dollars(spent.usd)} spent)`;
  return undefined;
}
