/** Prices in USD per million tokens. `cacheWrite` defaults to 125 % of `input`. */
export interface ModelPrice {
  input: number;
  cachedInput: number;
  output: number;
  cacheWrite?: number;
}

/**
 * Current list prices, matched by model-name prefix (the longest prefix wins). Data, not law: prices change,
 * and `costOf` accepts a table of your own.
 */
export const PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-5.5-pro": { input: 30, cachedInput: 30, output: 180 },
  "gpt-5.5": { input: 5, cachedInput: 0.5, output: 30 },
  "gpt-5.4-nano": { input: 0.2, cachedInput: 0.02, output: 1.25 },
  "gpt-5.4-mini": { input: 0.75, cachedInput: 0.075, output: 4.5 },
  "gpt-5.4": { input: 2.5, cachedInput: 0.25, output: 15 },
  "gpt-5-mini": { input: 0.25, cachedInput: 0.025, output: 2 },
  "gpt-5": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "claude-opus-4": { input: 5, cachedInput: 0.5, output: 25 },
  "claude-opus-5": { input: 5, cachedInput: 0.5, output: 25 },
  "claude-sonnet-5": { input: 2, cachedInput: 0.2, output: 10 },
  "claude-sonnet-4": { input: 3, cachedInput: 0.3, output: 15 },
  "claude-haiku-4": { input: 1, cachedInput: 0.1, output: 5 },
  "claude-fable-5": { input: 10, cachedInput: 1, output: 50 },
  "claude-mythos-5": { input: 10, cachedInput: 1, output: 50 },
  "gemini-3.1-pro": { input: 2, cachedInput: 0.2, output: 12 },
  "gemini-3.5-flash": { input: 1.5, cachedInput: 0.15, output: 9 },
  "gemini-3-flash": { input: 0.5, cachedInput: 0.05, output: 3 },
  "gemini-2.5-pro": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gemini-2.5-flash": { input: 0.3, cachedInput: 0.03, output: 2.5 },
};

/** The price entry for a model: the longest matching prefix, ignoring case and a provider prefix ("openai/…"). */
export function priceOf(
  model: string,
  table: Readonly<Record<string, ModelPrice>> = PRICES,
): ModelPrice | undefined {
  const name = model.toLowerCase().replace(/^[^/]+\//, "");
  let best: string | undefined;
  for (const prefix of Object.keys(table)) {
    if (name.startsWith(prefix.toLowerCase()) && (best === undefined || prefix.length > best.length))
      best = prefix;
  }
  return best === undefined ? undefined : table[best];
}

/**
 * Copilot and Kiro are paid for by subscription, so their replies cost 0 USD here. What they count
 * instead, as notes: Copilot deducts premium requests per user prompt, times the model's multiplier
 * (paid plans, from GitHub's published model-multiplier table; the live model list's
 * `billing.multiplier`, shown as `ModelInfo.premiumMultiplier`, is what counts); Kiro reports the
 * credits of each request (`Usage.credits`).
 */
export const COPILOT_PREMIUM_MULTIPLIERS: Readonly<Record<string, number>> = {
  "gpt-4.1": 0,
  "gpt-4o": 0,
  "gpt-5-mini": 0,
  "claude-haiku-4.5": 0.33,
  "claude-sonnet-4": 1,
  "claude-sonnet-4.5": 1,
  "claude-sonnet-4.6": 1,
  "claude-opus-4.5": 3,
  "claude-opus-4.6": 3,
  "gemini-2.5-pro": 1,
  "gemini-3-flash": 0.33,
  "gemini-3.1-pro": 1,
  "gpt-5.2": 1,
  "gpt-5.4": 1,
  "gpt-5.4-mini": 0.33,
};
