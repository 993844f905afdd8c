import { describe, expect, it } from "vitest";
import { parseBudget, SessionBudget } from "./session-budget.js";

const ask = (model: string, inputTokens: number) => ({ provider: "openai", model, inputTokens });

describe("a session's budget", () => {
  it("takes dollars, tokens, or neither, and keeps the other limit as it was", () => {
    expect(parseBudget("2.50", {})).toEqual({ usd: 2.5 });
    expect(parseBudget("$3", { tokens: 10 })).toEqual({ usd: 3, tokens: 10 });
    expect(parseBudget("tokens 5000", { usd: 1 })).toEqual({ usd: 1, tokens: 5000 });
    expect(parseBudget("tokens off", { usd: 1, tokens: 5 })).toEqual({ usd: 1 });
    expect(parseBudget("off", { usd: 1, tokens: 5 })).toEqual({});
    expect(parseBudget("usd 4", { tokens: 5 })).toEqual({ usd: 4, tokens: 5 });
    expect(parseBudget("usd off", { usd: 1, tokens: 5 })).toEqual({ tokens: 5 });
    expect(() => parseBudget("tokens 1.5", {})).toThrow(
      "budget tokens takes a whole number above 0, not '1.5'",
    );
    expect(() => parseBudget("-2", {})).toThrow("a budget in dollars is a number above 0, not '-2'");
    expect(() => parseBudget("lots", {})).toThrow("budget USD, budget tokens N or budget off");
    expect(() => parseBudget("2 3 4", {})).toThrow("budget USD, budget tokens N or budget off");
  });

  it("refuses a request once it is spent, or when the request's input alone would pass it", () => {
    const budget = new SessionBudget();
    budget.limit = { tokens: 1000 };
    expect(budget.refusal(ask("any", 900))).toBeUndefined();
    budget.charge(0, 200);
    expect(budget.refusal(ask("any", 900))).toBe(
      "the next request's 900 input tokens would pass 1000 (200 spent)",
    );
    budget.charge(0, 800);
    expect(budget.refusal(ask("any", 1))).toBe("1000 tokens are spent (1000)");
    // A million gpt-5 input tokens cost $1.25 at the price table's rate.
    budget.limit = { usd: 1 };
    expect(budget.refusal(ask("gpt-5", 1_000_000))).toBe(
      "the next request's input ($1.2500) would pass $1.0000 ($0.0000 spent)",
    );
    expect(budget.refusal(ask("gpt-5", 1000))).toBeUndefined();
  });

  it("counts from the start whether a limit is set or not, and its file and save say what is left", () => {
    const budget = new SessionBudget();
    budget.charge(0.75, 1200);
    budget.limit = { usd: 2 };
    expect(budget.left()).toEqual({ usd: 1.25 });
    expect(budget.text()).toContain(
      "usd=2.0000\nusd_spent=0.7500\nusd_left=1.2500\ntokens=none\ntokens_spent=1200\ntokens_left=-\nwarn_at=50%,80%\n",
    );
    expect(new SessionBudget(budget.toSaved()).text()).toBe(budget.text());
  });

  it("says which warnings a charge passed, and when it spent the budget", () => {
    const budget = new SessionBudget();
    budget.limit = { usd: 2, tokens: 1000 };
    expect(budget.charge(0.5, 100)).toEqual([]);
    // One charge past both fractions warns of both.
    expect(budget.charge(1.2, 100)).toEqual([
      { fraction: 0.5, message: "50% of $2.0000 is spent ($1.7000)" },
      { fraction: 0.8, message: "80% of $2.0000 is spent ($1.7000)" },
    ]);
    expect(budget.charge(0, 400)).toEqual([
      { fraction: 0.5, message: "50% of 1000 tokens is spent (600 tokens)" },
    ]);
    // A charge that reaches the limit says so, not that it passed 80% on the way.
    expect(budget.charge(0.4, 500)).toEqual([
      { fraction: 1, message: "$2.0000 is spent ($2.1000)" },
      { fraction: 1, message: "1000 tokens are spent (1100)" },
    ]);
    // Past the limit, a charge says nothing more.
    expect(budget.charge(0.1, 10)).toEqual([]);
  });
});
