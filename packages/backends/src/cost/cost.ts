import type { Usage } from "../types.js";
import { type ModelPrice, PRICES, priceOf } from "./price-table.js";

/**
 * The cost of a request in USD: what the provider reported when it did, else from the price table —
 * uncached input at the input price, cache reads at the cached price, cache writes at 125 % of the input
 * price (unless the table says otherwise), output (reasoning included) at the output price. Zero for
 * unknown and local models.
 */
export function costOf(
  model: string,
  usage: Usage,
  table: Readonly<Record<string, ModelPrice>> = PRICES,
): number {
  if (usage.costUsd !== undefined) return usage.costUsd;
  const price = priceOf(model, table);
  if (!price) return 0;
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheCreationTokens);
  const write = price.cacheWrite ?? price.input * 1.25;
  return (
    (uncached * price.input +
      usage.cachedInputTokens * price.cachedInput +
      usage.cacheCreationTokens * write +
      usage.outputTokens * price.output) /
    1_000_000
  );
}

/** Providers paid for by subscription: their replies cost 0 USD, whatever the model's list price. */
const SUBSCRIPTION_PROVIDERS: ReadonlySet<string> = new Set(["copilot", "kiro"]);

/**
 * Whether what `model` at `provider` spends can be counted in dollars: the provider bills by the token
 * and the price table knows the model. A budget in dollars cannot hold a subscription (Copilot, Kiro),
 * a local model or one the table does not list: count its tokens instead.
 */
export function pricedInDollars(
  provider: string,
  model: string,
  table: Readonly<Record<string, ModelPrice>> = PRICES,
): boolean {
  return !SUBSCRIPTION_PROVIDERS.has(provider) && priceOf(model, table) !== undefined;
}
