import { AnthropicBackend, type Backend, GeminiBackend, OllamaBackend, OpenAiBackend } from "@ollie/backends";
import { MockLlmServer, type MockReply, type RecordedRequest } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { only } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";
import type { AgentOptions } from "../agent/agent-options.js";
import { COMPACTION_INSTRUCTIONS } from "../compaction/summary.js";
import type { AgentEvent } from "../events/agent-events.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start({ models: [{ id: "qwen3:8b", contextLength: 40_960 }] });
});
afterAll(async () => server.close());

const backends = {
  anthropic: () =>
    new AnthropicBackend({ baseUrl: server.baseUrl("anthropic"), model: "claude-x", apiKey: "k" }),
  gemini: () =>
    new GeminiBackend({ baseUrl: server.baseUrl("gemini"), model: "gemini-2.5-flash", apiKey: "k" }),
  openai: () => new OpenAiBackend({ baseUrl: server.baseUrl("openai"), model: "gpt-4.1", apiKey: "k" }),
  ollama: () => new OllamaBackend({ baseUrl: server.baseUrl("ollama"), model: "qwen3:8b" }),
};

async function agentOver(backend: Backend, options: Partial<AgentOptions> = {}) {
  const agent = await Agent.create({ backend, retry: { baseDelayMs: 5 }, ...options });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  return { agent, events };
}

describe("a reply that ends short is said, in the events and the outcome", () => {
  const cases: Array<[keyof typeof backends, MockReply["stopReason"], RegExp]> = [
    ["anthropic", "length", /output limit \(max_tokens 100\).*raise max_tokens/],
    ["anthropic", "refusal", /declined to answer.*\[refusal\]/],
    ["openai", "content_filter", /safety filter.*\[content_filter\]/],
    ["gemini", "blocked", /blocked the prompt/],
    ["gemini", "malformed_call", /tool call the provider could not read.*MALFORMED_FUNCTION_CALL/],
    ["ollama", "length", /output limit/],
  ];
  for (const [provider, reason, says] of cases) {
    it(`${provider} ${reason}`, async () => {
      server.enqueue({
        text: reason === "blocked" || reason === "malformed_call" ? "" : "Partly",
        stopReason: reason,
      });
      const { agent, events } = await agentOver(backends[provider](), { params: { maxTokens: 100 } });
      const outcome = await agent.submit("Tell me everything.");
      expect(outcome.status).toBe("done");
      expect(outcome.stop).toMatchObject({ reason, message: expect.stringMatching(says) });
      expect(only(events, "stopreason")).toEqual([{ type: "stopreason", ...outcome.stop }]);
    });
  }

  it("an empty reply", async () => {
    server.enqueue({ text: "" });
    const { agent } = await agentOver(backends.anthropic());
    const outcome = await agent.submit("Hello?");
    expect(outcome.stop).toMatchObject({ reason: "stop", message: expect.stringMatching(/empty reply/) });
    // The next prompt is still a request the API takes.
    server.enqueue({ text: "Here." });
    expect(await agent.submit("Hello again?")).toMatchObject({ status: "done", reply: { content: "Here." } });
    expect(server.lastRequest?.rejected).toBeUndefined();
  });

  it("a normal reply says nothing more", async () => {
    server.enqueue({ text: "Fine." });
    const { agent, events } = await agentOver(backends.openai());
    const outcome = await agent.submit("How are you?");
    expect(outcome.stop).toBeUndefined();
    expect(only(events, "stopreason")).toEqual([]);
  });
});

describe("a retry after a stream broke mid-reply", () => {
  const streamed = (events: AgentEvent[]) =>
    only(events, "assistant")
      .map((e) => e.delta)
      .join("");

  it("does not show the partial text twice when the retry repeats it", async () => {
    server.enqueue(
      { fault: { type: "stream_error", afterText: "The answer is" }, delayMs: 20 },
      { text: "The answer is 42.", chunkSize: 3 },
    );
    const { agent, events } = await agentOver(backends.anthropic());
    const outcome = await agent.submit("Question?");
    expect(outcome.reply?.content).toBe("The answer is 42.");
    expect(streamed(events)).toBe("The answer is 42.");
    expect(only(events, "discard")).toEqual([]);
  });

  it("voids the partial text when the retry says something else, and shows the retry in full", async () => {
    server.enqueue(
      { fault: { type: "stream_error", afterText: "The answer is" }, delayMs: 20 },
      { text: "Let me think again: 41.", chunkSize: 3 },
    );
    const { agent, events } = await agentOver(backends.anthropic());
    await agent.submit("Question?");
    expect(only(events, "discard")).toEqual([{ type: "discard", partial: "The answer is" }]);
    expect(streamed(events)).toBe("The answer isLet me think again: 41.");
    const discardAt = events.findIndex((e) => e.type === "discard");
    const after = events.slice(discardAt).filter((e) => e.type === "assistant");
    expect(after.map((e) => (e as { delta: string }).delta).join("")).toBe("Let me think again: 41.");
  });
});

describe("ollama's real window", () => {
  it("compacts at the window it asks for, even when Ollama does not count a cached prompt", async () => {
    const big = "word ".repeat(4000);
    const chats: RecordedRequest[] = [];
    const ollama = await MockLlmServer.start({
      models: [{ id: "qwen3:8b", contextLength: 40_960 }],
      replies: (r) => {
        chats.push(r);
        const body = r.body as { messages: Array<{ content: string }> };
        if (body.messages[0]?.content === COMPACTION_INSTRUCTIONS)
          return { text: JSON.stringify({ objective: "talk", decisions: ["keep talking"] }) };
        // A cached prompt: Ollama leaves prompt_eval_count out.
        return { text: big, usage: { input: null, output: 1000 } };
      },
    });
    try {
      const backend = new OllamaBackend({ baseUrl: ollama.baseUrl("ollama"), model: "qwen3:8b" });
      const { agent, events } = await agentOver(backend, { compaction: { hotMessages: 2 } });
      for (const prompt of ["one", "two", "three"]) await agent.submit(prompt);
      const window = await backend.contextLength();
      expect(window).toBe(16_384);
      const sent = chats.map((r) => (r.body as { options?: { num_ctx?: number } }).options?.num_ctx);
      expect(new Set(sent)).toEqual(new Set([16_384]));
      expect(only(events, "compaction").length).toBeGreaterThanOrEqual(1);
      const figures = await agent.context();
      expect(figures.contextLength).toBe(16_384);
      expect(figures.tokens).toBeGreaterThan(1000);
    } finally {
      await ollama.close();
    }
  });
});
