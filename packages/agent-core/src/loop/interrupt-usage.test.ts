import { type Backend, estimateTextTokens, type StreamEvent, type Usage } from "@ollie/backends";
import { describe, expect, it, vi } from "vitest";
import { ended, only, scriptedAgent, WAIT } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";
import type { AgentEvent } from "../events/agent-events.js";

/** A backend of one's own that reports usage as its stream starts, streams `text`, then waits to be cut. */
function earlyUsageBackend(usage: Usage, text: string): Backend {
  return {
    name: "homemade",
    provider: "custom",
    model: "m",
    setModel() {},
    async *chatStream(_messages, _tools, _params, signal): AsyncIterable<StreamEvent> {
      yield { type: "usage", usage };
      yield { type: "text", delta: text };
      await new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
    },
    contextLength: async () => undefined,
    models: async () => [],
  };
}

describe("a turn interrupted during the model's reply", () => {
  it("counts the request it cut off: the request's size and what it streamed, marked as estimates", async () => {
    const streamed = "Let me think about this for a long while before answering.";
    const { agent, of } = await scriptedAgent([{ text: streamed, chunkSize: 4, delayMs: 5 }]);
    const size = (await agent.context()).tokens;
    const turn = agent.submit("Tell me a story");
    await vi.waitFor(() => expect(of("assistant").length).toBeGreaterThanOrEqual(3), WAIT);
    agent.interrupt("user pressed stop");
    const { partial, usage } = ended(await turn, "interrupted");

    const [counted, ...more] = of("usage");
    expect(more).toEqual([]);
    expect(counted?.request).toMatchObject({
      outputTokens: estimateTextTokens(partial),
      inputEstimated: true,
      outputEstimated: true,
    });
    // The request carried the prompt as well as what was measured before it.
    expect(counted!.request.inputTokens).toBeGreaterThan(size);
    expect(usage).toMatchObject({
      requests: 1,
      inputTokens: counted!.request.inputTokens,
      outputTokens: estimateTextTokens(partial),
    });
    expect(agent.usage.session.requests).toBe(1);
  });

  it("keeps the usage the stream reported before the cut, the provider's own count", async () => {
    const reported: Usage = {
      inputTokens: 1200,
      outputTokens: 1,
      cachedInputTokens: 1000,
      cacheCreationTokens: 0,
    };
    const agent = await Agent.create({ backend: earlyUsageBackend(reported, "Thinking") });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => events.push(e));
    const turn = agent.submit("Hello");
    await vi.waitFor(() => expect(only(events, "assistant")).toHaveLength(1), WAIT);
    agent.interrupt();
    const { usage } = ended(await turn, "interrupted");
    expect(only(events, "usage").map((e) => e.request)).toEqual([reported]);
    expect(usage).toMatchObject({ requests: 1, inputTokens: 1200, cachedInputTokens: 1000 });
  });

  it("counts nothing for an interruption while it waits to retry: no request was under way", async () => {
    const { agent, of } = await scriptedAgent([{ fault: { type: "server_error", status: 503 } }], {
      retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const turn = agent.submit("Hi");
    await vi.waitFor(() => expect(of("retry")).toHaveLength(1), WAIT);
    agent.interrupt();
    expect(ended(await turn, "interrupted").usage.requests).toBe(0);
    expect(of("usage")).toEqual([]);
  });
});
