import { describe, expect, it } from "vitest";
import { call, echoTool, heldTurn, scriptedAgent, tools, untilState } from "../__fixtures__/agents.js";
import { QueueFullError } from "./errors.js";

describe("a turn", () => {
  it("streams the answer and reports it, its usage and the states it went through", async () => {
    const { agent, events, of } = await scriptedAgent([
      { text: "Hello there.", usage: { input: 100, output: 4, cachedInput: 60 } },
    ]);
    const outcome = await agent.submit("Hi");
    expect(outcome.status).toBe("done");
    expect(outcome.reply?.content).toBe("Hello there.");
    expect(
      of("assistant")
        .map((e) => e.delta)
        .join(""),
    ).toBe("Hello there.");
    expect(of("state").map((e) => e.state)).toEqual(["thinking", "idle"]);
    // The turn is under way before its prompt enters the history (its preTurn hook comes first).
    expect(events.slice(0, 2)).toEqual([
      { type: "state", state: "thinking" },
      { type: "user", text: "Hi", from: "user" },
    ]);
    expect(events.slice(-2).map((e) => e.type)).toEqual(["turn", "state"]);
    expect(agent.usage.session).toMatchObject({
      inputTokens: 100,
      outputTokens: 4,
      cachedInputTokens: 60,
      requests: 1,
    });
    expect(agent.history).toEqual([
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello there." },
    ]);
  });

  it("runs tool calls, appends their results in order, and asks the model again", async () => {
    const set = tools(echoTool("read", { readSafe: true }));
    const { agent, backend, of } = await scriptedAgent(
      [
        {
          text: "Reading.",
          toolCalls: [
            { name: "read", arguments: { path: "a" } },
            { name: "read", arguments: { path: "b" } },
          ],
        },
        { text: "Both read." },
      ],
      { tools: set },
    );
    const outcome = await agent.submit("Read a and b");
    expect(outcome).toMatchObject({ status: "done", steps: 1 });
    expect(of("call").map((e) => e.call.arguments)).toEqual([{ path: "a" }, { path: "b" }]);
    expect(of("tool").map((e) => e.result.content)).toEqual(['read {"path":"a"}', 'read {"path":"b"}']);
    const second = backend.calls[1]!;
    expect(second.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(second.tools.map((t) => t.name)).toEqual(["read"]);
    expect(second.messages[0]).toEqual({
      role: "system",
      content: "You are a test agent.\n\n## Tools\n\n- read: read things",
    });
  });

  it("puts the profile's user prompts before every prompt", async () => {
    const { agent, backend } = await scriptedAgent([{ text: "ok" }], { userPrompts: ["Be brief."] });
    await agent.submit("Why?");
    expect(backend.calls[0]!.messages.at(-1)).toEqual({ role: "user", content: "Be brief.\n\nWhy?" });
  });
});

describe("the queue", () => {
  it("runs prompts one at a time, in the order they came, and says where each one stands", async () => {
    const { agent, backend } = await scriptedAgent([
      { text: "one", delayMs: 5 },
      { text: "two" },
      { text: "three" },
    ]);
    const subs = ["first", "second", "third"].map((p) => agent.submit(p));
    expect(subs.map((s) => s.position)).toEqual([0, 1, 2]);
    await agent.waitChange("state", "idle");
    expect(agent.queued).toEqual(["second", "third"]);
    const outcomes = await Promise.all(subs);
    expect(outcomes.map((o) => o.reply?.content)).toEqual(["one", "two", "three"]);
    expect(backend.calls.map((c) => c.messages.at(-1)?.content)).toEqual(["first", "second", "third"]);
  });

  it("refuses a prompt when it is full, and queues nothing", async () => {
    const { agent } = await scriptedAgent([{ text: "slow", delayMs: 20 }, { text: "a" }, { text: "b" }], {
      maxQueue: 2,
    });
    const running = agent.submit("first");
    const queued = agent.submit("second");
    expect(() => agent.submit("third")).toThrow(QueueFullError);
    expect((await running).status).toBe("done");
    expect((await queued).reply?.content).toBe("a");
  });

  it("keeps queued prompts when the running turn is interrupted", async () => {
    const { agent } = await scriptedAgent([
      { text: "a long answer", chunkSize: 1, delayMs: 10 },
      { text: "next" },
    ]);
    const first = agent.submit("first");
    const second = agent.submit("second");
    await new Promise<void>((resolve) => agent.subscribe((e) => e.type === "assistant" && resolve()));
    agent.interrupt("stop");
    expect((await first).status).toBe("interrupted");
    expect(await second).toMatchObject({ status: "done", reply: { content: "next" } });
  });
});

describe("inject", () => {
  it("puts text before the model at the next step of the running turn", async () => {
    const { agent, backend, of, turn, release } = await heldTurn();
    expect(agent.inject("also check the tests")).toEqual({ injected: true });
    release();
    await turn;
    expect(backend.calls[1]!.messages.slice(-2)).toEqual([
      { role: "tool", toolCallId: "call_scripted_0", name: "wait", content: "waited" },
      { role: "user", content: "also check the tests" },
    ]);
    expect(of("user").map((e) => e.from)).toEqual(["user", "inject"]);
  });

  it("submits the text when no turn runs", async () => {
    const { agent } = await scriptedAgent([{ text: "ok" }]);
    const result = agent.inject("hello");
    expect("position" in result && (await result).status).toBe("done");
  });
});

describe("waitChange", () => {
  it("resolves when the state moves on, and at once when it already has", async () => {
    const { agent } = await scriptedAgent([{ text: "ok", delayMs: 5 }]);
    const thinking = agent.waitChange("state", "idle");
    const turn = agent.submit("go");
    expect(await thinking).toBe("thinking");
    await turn;
    expect(await agent.waitChange("state", "thinking")).toBe("idle");
  });

  it("rejects when its signal aborts", async () => {
    const { agent } = await scriptedAgent([]);
    const ac = new AbortController();
    const waiting = agent.waitChange("name", agent.name, ac.signal);
    ac.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
  });
});

describe("usage and cost", () => {
  it("add up per turn and per session, priced from the table unless the provider says", async () => {
    const { agent, of } = await scriptedAgent(
      [
        { text: "a", usage: { input: 1_000_000, output: 100_000, cachedInput: 800_000 } },
        { text: "b", usage: { input: 10, output: 10, cost: 0.5 } },
      ],
      {},
    );
    agent.runtime.backend.setModel("claude-sonnet-4-5");
    await agent.submit("one");
    // 200k uncached at $3/M + 800k cached at $0.30/M + 100k out at $15/M
    expect(agent.usage.lastTurnCostUsd).toBeCloseTo(0.6 + 0.24 + 1.5, 6);
    await agent.submit("two");
    expect(agent.usage.lastTurnCostUsd).toBe(0.5);
    expect(agent.usage.turn).toMatchObject({ inputTokens: 10, requests: 1, costUsd: 0.5 });
    expect(agent.usage.session).toMatchObject({
      inputTokens: 1_000_010,
      outputTokens: 100_010,
      cachedInputTokens: 800_000,
      requests: 2,
    });
    expect(agent.usage.session.costUsd).toBeCloseTo(2.84, 6);
    expect(of("usage").map((e) => e.costUsd)).toEqual([expect.closeTo(2.34, 6), 0.5]);
  });
});

describe("identity and events", () => {
  it("keep the id, let the name change (waking waiters), and report reasoning apart from text", async () => {
    const { agent, of } = await scriptedAgent([{ reasoning: "Think first.", text: "Answer." }], {
      id: "glenda",
    });
    const renamed = agent.waitChange("name", "glenda");
    agent.name = "reviewer";
    expect(await renamed).toBe("reviewer");
    expect(agent.id).toBe("glenda");
    await agent.submit("go");
    expect(
      of("reasoning")
        .map((e) => e.delta)
        .join(""),
    ).toBe("Think first.");
    expect(agent.history.at(-1)).toMatchObject({ content: "Answer.", reasoning: [{ text: "Think first." }] });
  });

  it("keeps going when a listener throws", async () => {
    const { agent } = await scriptedAgent([{ text: "fine" }]);
    agent.subscribe(() => {
      throw new Error("bad listener");
    });
    expect((await agent.submit("go")).status).toBe("done");
  });
});

describe("the task state", () => {
  it("takes the plan step from the session's plan file when there is one", async () => {
    const { agent } = await scriptedAgent([call("read"), { text: "ok" }], {
      tools: tools(echoTool("read")),
      readPlanStep: async () => "write the tests",
    });
    await agent.submit("Add a feature");
    expect(agent.taskState).toMatchObject({
      objective: "Add a feature",
      planStep: "write the tests",
      lastAction: "read({}) → read {}",
    });
  });
});

describe("closing", () => {
  it("stops the turn, forgets the queue, saves a last time and closes the tools", async () => {
    const saves: number[] = [];
    let closed = false;
    const set = Object.assign(tools(), {
      close: async () => {
        closed = true;
      },
    });
    const { agent } = await scriptedAgent([{ text: "slow", chunkSize: 1, delayMs: 20 }], {
      tools: set,
      persist: async (s) => {
        saves.push(s.messages.length);
      },
    });
    const running = agent.submit("one");
    const waiting = agent.submit("two");
    await untilState(agent, "thinking");
    await agent.close();
    expect((await running).status).toBe("interrupted");
    expect((await waiting).status).toBe("interrupted");
    expect(saves.at(-1)).toBeGreaterThanOrEqual(1);
    expect(saves.length).toBeGreaterThanOrEqual(2);
    expect(closed).toBe(true);
  });
});
