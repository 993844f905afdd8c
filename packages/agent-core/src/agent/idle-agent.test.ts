import { describe, expect, it } from "vitest";
import { heldTurn, scriptedAgent } from "../__fixtures__/agents.js";
import { emptyTotals } from "../history/usage-meter.js";
import { UnknownToolError } from "../tools/tool-set.js";

// An idle agent makes its queue, meter, watch, usage totals and tool tables on first use, and shares the
// defaults it did not change: these pin down that it behaves as one that made them all up front.
describe("an idle agent", () => {
  it("reads zero usage before any request, and counts the first turn's", async () => {
    const { agent } = await scriptedAgent([{ text: "ok", usage: { input: 10, output: 2 } }]);
    expect(agent.usage).toEqual({
      turn: emptyTotals(),
      session: emptyTotals(),
      compaction: emptyTotals(),
      lastTurnCostUsd: 0,
    });
    await agent.submit("hi");
    expect(agent.usage.turn).toMatchObject({ inputTokens: 10, outputTokens: 2, requests: 1 });
    expect(agent.usage.session).toMatchObject({ inputTokens: 10, outputTokens: 2, requests: 1 });
    expect(agent.usage.compaction).toEqual(emptyTotals());
    // What it hands out is a copy: changing it changes nothing in the agent.
    agent.usage.session.requests = 99;
    expect(agent.usage.session.requests).toBe(1);
  });

  it("takes prompts again after its queue ran dry, in order", async () => {
    const { agent } = await scriptedAgent([{ text: "one" }, { text: "two" }, { text: "three" }]);
    expect((await agent.submit("a")).reply?.content).toBe("one");
    expect(agent.queued).toEqual([]);
    expect(agent.snapshot().queued).toBeUndefined();
    const second = agent.submit("b");
    const third = agent.submit("c");
    expect([second.position, third.position]).toEqual([0, 1]);
    expect(agent.queued).toEqual(["b", "c"]);
    expect((await second).reply?.content).toBe("two");
    expect((await third).reply?.content).toBe("three");
  });

  it("saves the prompts that waited when it was closed", async () => {
    const { agent, release } = await heldTurn();
    void agent.submit("later");
    const saved = agent.close();
    release();
    await saved;
    expect(agent.snapshot().queued).toEqual(["later"]);
  });

  it("calls a listener once however often it subscribed, and stops when it unsubscribes", async () => {
    const { agent } = await scriptedAgent([{ text: "one" }, { text: "two" }]);
    const seen: string[] = [];
    const listener = (e: { type: string }) => {
      if (e.type === "turn") seen.push("turn");
    };
    const off = agent.subscribe(listener);
    agent.subscribe(listener);
    await agent.submit("a");
    expect(seen).toEqual(["turn"]);
    off();
    await agent.submit("b");
    expect(seen).toEqual(["turn"]);
  });

  it("tells every listener of an event, even when one unsubscribes another on hearing it", async () => {
    const { agent } = await scriptedAgent([{ text: "ok" }]);
    const heard: string[] = [];
    let offSecond = () => {};
    agent.subscribe((e) => {
      if (e.type !== "turn") return;
      heard.push("first");
      offSecond();
    });
    offSecond = agent.subscribe((e) => {
      if (e.type === "turn") heard.push("second");
    });
    await agent.submit("a");
    expect(heard).toEqual(["first", "second"]);
  });

  it("without tools lists none and refuses a call by name", async () => {
    const { agent } = await scriptedAgent([]);
    expect(agent.runtime.toolSchemas).toEqual([]);
    expect(await agent.runtime.tools.list()).toEqual([]);
    await expect(agent.runtime.tools.call("shell", {}, new AbortController().signal)).rejects.toBeInstanceOf(
      UnknownToolError,
    );
  });

  it("wakes a waiter on a change of name made while it was idle", async () => {
    const { agent } = await scriptedAgent([]);
    const changed = agent.waitChange("name", agent.name);
    agent.name = "renamed";
    expect(await changed).toBe("renamed");
  });
});
