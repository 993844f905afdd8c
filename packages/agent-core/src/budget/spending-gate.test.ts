import { describe, expect, it } from "vitest";
import { call, echoTool, ended, scriptedAgent, tools } from "../__fixtures__/agents.js";
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
    expect(outcome.reason).toBe("the budget of 100 tokens is spent (110)");
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
      /^the next request's input \(\$0\.\d{4}\) would pass the budget of \$0\.0000/,
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
});
