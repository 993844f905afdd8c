import { describe, expect, it } from "vitest";
import { modelLines } from "./models-file.js";

describe("the models file's lines", () => {
  it("give the id and the window, and the traits a provider states in a third column", () => {
    expect(
      modelLines([
        { id: "qwen3:8b", contextLength: 40_960 },
        { id: "mystery" },
        {
          id: "claude-sonnet-4.5",
          contextLength: 128_000,
          maxOutputTokens: 16_000,
          tools: true,
          vision: true,
          premiumMultiplier: 1,
        },
        { id: "gpt-4.1", tools: false, premiumMultiplier: 0 },
      ]),
    ).toBe(
      "qwen3:8b\t40960\nmystery\nclaude-sonnet-4.5\t128000\tout=16000 tools vision premium=1\ngpt-4.1\t-\tno-tools premium=0\n",
    );
  });
});
