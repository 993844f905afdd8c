import { describe, expect, it } from "vitest";
import { costOf, pricedInDollars } from "./cost.js";
import { priceOf } from "./price-table.js";

describe("costs", () => {
  it("match the longest model-name prefix, ignoring case and a provider prefix", () => {
    expect(priceOf("gpt-5.4-mini-2026-03-01")?.input).toBe(0.75);
    expect(priceOf("GPT-5.4")?.input).toBe(2.5);
    expect(priceOf("anthropic/claude-sonnet-4-6")?.output).toBe(15);
    expect(priceOf("qwen3:8b")).toBeUndefined();
  });

  it("price uncached input, cache reads, cache writes at 125 % and output", () => {
    const usage = {
      inputTokens: 20_185,
      cachedInputTokens: 18_950,
      cacheCreationTokens: 1_200,
      outputTokens: 412,
    };
    // claude-sonnet-4-6: input 3, cached 0.3, write 3.75, output 15 per million
    const expected = (35 * 3 + 18_950 * 0.3 + 1_200 * 3.75 + 412 * 15) / 1e6;
    expect(costOf("claude-sonnet-4-6", usage)).toBeCloseTo(expected, 12);
  });

  it("prefer the cost the provider reported, and charge nothing for unknown or local models", () => {
    const usage = { inputTokens: 100, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 50 };
    expect(costOf("gpt-5.4", { ...usage, costUsd: 0.123 })).toBe(0.123);
    expect(costOf("llama3.2", usage)).toBe(0);
    expect(costOf("gpt-5.4", usage)).toBeCloseTo((100 * 2.5 + 50 * 15) / 1e6, 12);
  });

  it("take a table of one's own", () => {
    expect(
      costOf(
        "house-model-7",
        { inputTokens: 1e6, cachedInputTokens: 0, cacheCreationTokens: 0, outputTokens: 0 },
        {
          "house-model": { input: 1, cachedInput: 0.1, output: 2 },
        },
      ),
    ).toBe(1);
  });

  it("count in dollars only what bills by the token at a listed price", () => {
    expect(pricedInDollars("openai", "gpt-5.4")).toBe(true);
    expect(pricedInDollars("anthropic", "claude-sonnet-4-6")).toBe(true);
    // A subscription bills nothing per token, whatever the model's list price.
    expect(pricedInDollars("copilot", "gpt-5.4")).toBe(false);
    expect(pricedInDollars("kiro", "claude-sonnet-4-6")).toBe(false);
    expect(pricedInDollars("ollama", "llama3.2")).toBe(false);
  });
});
