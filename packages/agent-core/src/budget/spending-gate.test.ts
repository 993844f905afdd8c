import { describe, expect, it, vi } from "vitest";
import { call, echoTool, ended, scriptedAgent, tools, WAIT } from "../__fixtures__/agents.js";
import { type SpendingGate, spendingLimit } from "./spending-gate.js";

describe("a spending limit", () => {
  it("in tokens: the turn's second request is not made once the first has spent the budget", async () => {
    const { agent, backend, of } = await scriptedAgent(
      // The first reply reports 50 input and 60 output tokens: 110, past the 100 of the budget.
      [
        { ...call("echo", { text: "hi" }, "Looking."), usage: { input: 50, output: 60 } },
        { text: "never sent" },
      ],
      { tools: tools(echoTool("echo")), spending: spendingLimit({ tokens: 100 }) },
    );
    const outcome = ended(await agent.submit("Echo hi"), "budget");
    expect(outcome.reason).toBe("this agent's budget: 100 tokens are spent (110)");
    expect(outcome.steps).toBe(1);
    expect(backend.calls).toHaveLength(1);
    expect(of("tool")).toHaveLength(1);
    // The history holds what the turn did: the reply and its call's result.
    expect(agent.history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("in dollars: a request whose input alone would pass the budget is not made", async () => {
    const { agent, backend } = await scriptedAgent([{ text: "never sent" }], {
      spending: spendingLimit({ usd: 0.000001 }),
    });
    backend.setModel("gpt-5");
    const outcome = ended(await agent.submit("A long question ".repeat(50)), "budget");
    expect(outcome.reason).toMatch(
      /^this agent's budget: the next request's input \(\$0\.\d{4}\) would pass \$0\.0000/,
    );
    expect(backend.calls).toHaveLength(0);
  });

  it("asks the gate before every request with what the agent has spent, and goes on while it says nothing", async () => {
    const asked: number[] = [];
    const gate: SpendingGate = {
      beforeRequest: ({ spent, inputTokens }) => {
        asked.push(spent.requests);
        expect(inputTokens).toBeGreaterThan(0);
        return undefined;
      },
    };
    const { agent } = await scriptedAgent([call("echo", { text: "a" }), { text: "Done." }], {
      tools: tools(echoTool("echo")),
      spending: gate,
    });
    expect((await agent.submit("Go")).status).toBe("done");
    expect(asked).toEqual([0, 1]);
  });

  it("in dollars on a model with no price in dollars: refused, unless a limit in tokens holds it", async () => {
    const unpriced = await scriptedAgent([{ text: "never sent" }], {
      spending: spendingLimit({ usd: 5 }),
    });
    unpriced.backend.setModel("house-model-7");
    const outcome = ended(await unpriced.agent.submit("Hello"), "budget");
    expect(outcome.reason).toBe(
      "this agent's budget: house-model-7 (scripted) has no price in dollars, so a budget in dollars cannot hold it: set one in tokens",
    );
    expect(unpriced.backend.calls).toHaveLength(0);

    const counted = await scriptedAgent([{ text: "Hi.", usage: { input: 10, output: 5 } }], {
      spending: spendingLimit({ usd: 5, tokens: 1000 }),
    });
    counted.backend.setModel("house-model-7");
    expect((await counted.agent.submit("Hello")).status).toBe("done");
  });

  it("asks the gate before a compaction's request too, and a refusal leaves the history as it was", async () => {
    const purposes: string[] = [];
    const { agent, backend, of } = await scriptedAgent([{ text: "Done." }], {
      spending: {
        beforeRequest: ({ purpose }) => {
          purposes.push(purpose);
          return purpose === "compaction" ? "nothing left for summaries" : undefined;
        },
      },
    });
    await agent.submit("Hello");
    const before = agent.history.length;
    expect(await agent.compact()).toBe(false);
    expect(purposes).toEqual(["turn", "compaction"]);
    expect(backend.calls).toHaveLength(1);
    expect(agent.history).toHaveLength(before);
    expect(of("info").map((e) => e.message)).toContain(
      "the compaction was not made: budget: nothing left for summaries",
    );
  });

  it("a turn whose context overflows ends in budget when the compaction it needs is refused", async () => {
    const { agent, backend } = await scriptedAgent([{ fault: { type: "context_overflow" } }], {
      spending: {
        beforeRequest: ({ purpose }) => (purpose === "compaction" ? "no room for a summary" : undefined),
      },
    });
    const outcome = ended(await agent.submit("A question too long"), "budget");
    expect(outcome.reason).toBe("no room for a summary");
    expect(backend.calls).toHaveLength(1);
  });

  it("stopped for a budget spent elsewhere, a turn ends in budget with what its cut request used", async () => {
    const { agent, of } = await scriptedAgent([
      { text: "A long answer that streams slowly.", chunkSize: 1, delayMs: 5 },
    ]);
    const turn = agent.submit("Go");
    await vi.waitFor(() => expect(of("assistant").length).toBeGreaterThanOrEqual(3), WAIT);
    expect(agent.stopForBudget("the parent's $1.0000 is spent")).toBe(true);
    const outcome = ended(await turn, "budget");
    expect(outcome.reason).toBe("the parent's $1.0000 is spent");
    expect(outcome.usage.outputTokens).toBeGreaterThan(0);
    expect(agent.stopForBudget("again")).toBe(false);
  });
});
