import { describe, expect, it } from "vitest";
import { collect, conversation, providerSuite, weatherTool } from "../../__fixtures__/provider-suite.js";
import type { Message } from "../../types.js";
import { AnthropicBackend } from "./anthropic-backend.js";

const make = (
  server: { baseUrl(p: "anthropic"): string },
  extra: Partial<ConstructorParameters<typeof AnthropicBackend>[0]> = {},
) =>
  new AnthropicBackend({
    baseUrl: server.baseUrl("anthropic"),
    model: "claude-test",
    apiKey: "sk-ant-secret",
    ...extra,
  });

const suite = providerSuite({
  provider: "anthropic",
  make: (s) => make(s),
  sse: true,
  retryAfter: 12,
  identifies: { model: true, id: "msg_mock" },
  without: ["tool_unsupported"],
});

describe("anthropic: requests", () => {
  it("put the system prompt on top, tool results in one user turn, thinking blocks back with their signatures", async () => {
    const server = suite.server();
    server.enqueue({ text: "ok" });
    // As if the mock had streamed them to this model before: it accepts only signatures it issued.
    server.signatures.issue("anthropic", "claude-test", "EqQBCkYI");
    server.signatures.issue("anthropic", "claude-test", "opaque");
    const withThinking: Message[] = conversation.map((m) =>
      m.role === "assistant"
        ? {
            ...m,
            reasoning: [
              { text: "Two cities.", signature: "EqQBCkYI" },
              { text: "", redacted: "opaque" },
            ],
          }
        : m,
    );
    await collect(
      make(server, { headers: { "anthropic-beta": "some-beta" } }).chatStream(
        [...withThinking, { role: "user", content: "And Rome?" }],
        [weatherTool],
        { maxTokens: 16_000, reasoningBudget: 4000, temperature: 1, stop: ["</end>"] },
      ),
    );
    const req = server.lastRequest!;
    expect(req.path).toBe("/v1/messages");
    expect(req.headers["x-api-key"]).toBe("sk-ant-secret");
    expect(req.headers["anthropic-version"]).toBe("2023-06-01");
    expect(req.headers["anthropic-beta"]).toBe("some-beta");
    expect(req.body).toEqual({
      model: "claude-test",
      max_tokens: 16_000,
      stream: true,
      system: [{ type: "text", text: "You are a coding agent.", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in Paris and Tokyo?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Two cities.", signature: "EqQBCkYI" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "tool_use", id: "call_A1", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "call_B2", name: "get_weather", input: { city: "Tokyo" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_A1", content: "18C cloudy" },
            { type: "tool_result", tool_use_id: "call_B2", content: "24C sunny" },
            { type: "text", text: "And Rome?", cache_control: { type: "ephemeral" } },
          ],
        },
      ],
      tools: [
        {
          name: "get_weather",
          description: "Current weather",
          input_schema: weatherTool.parameters,
          cache_control: { type: "ephemeral" },
        },
      ],
      thinking: { type: "enabled", budget_tokens: 4000 },
      temperature: 1,
      stop_sequences: ["</end>"],
    });
  });

  it("raise max_tokens above the thinking budget", async () => {
    const server = suite.server();
    server.enqueue({ text: "ok" });
    await collect(make(server).chatStream(conversation.slice(0, 2), [], { reasoningBudget: 10_000 }));
    expect((server.lastRequest!.body as { max_tokens: number }).max_tokens).toBe(14_096);
  });

  it("keep the thinking signature, and tolerate ping events", async () => {
    const server = suite.server();
    server.enqueue({ reasoning: "Let me think.", reasoningSignature: "c2lnbmVk", text: "Done.", ping: true });
    const r = await collect(make(server).chatStream(conversation.slice(0, 2), []));
    expect(r.done.message.reasoning).toEqual([
      {
        text: "Let me think.",
        signature: "c2lnbmVk",
        origin: { provider: "anthropic", model: "claude-test" },
      },
    ]);
    expect(r.text).toBe("Done.");
  });

  it("count cached and cache-written prompt tokens, and thinking tokens", async () => {
    const server = suite.server();
    server.enqueue({
      text: "ok",
      usage: { input: 20185, cachedInput: 18950, cacheCreation: 1200, output: 412, reasoning: 180 },
    });
    const r = await collect(make(server).chatStream(conversation.slice(0, 2), []));
    expect(r.usage).toEqual({
      inputTokens: 20185,
      outputTokens: 412,
      cachedInputTokens: 18950,
      cacheCreationTokens: 1200,
      reasoningTokens: 180,
    });
  });

  it("find the context window in the model list", async () => {
    const server = suite.server();
    const backend = make(server);
    backend.setModel("mock-model");
    expect(await backend.contextLength()).toBe(32_768);
    backend.setModel("claude-unlisted");
    expect(await backend.contextLength()).toBe(200_000);
  });

  it("leave out sampling settings thinking forbids, and say so once", async () => {
    const server = suite.server();
    const warnings: string[] = [];
    const backend = make(server, { onWarning: (m) => warnings.push(m) });
    for (const text of ["one", "two"]) {
      server.enqueue({ text });
      const r = await collect(
        backend.chatStream(conversation.slice(0, 2), [], {
          temperature: 0.2,
          topP: 0.5,
          reasoningBudget: 500,
        }),
      );
      expect(r.text).toBe(text);
      expect(server.lastRequest?.rejected).toBeUndefined();
    }
    const body = server.lastRequest!.body as Record<string, unknown>;
    expect(body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 1024 } });
    expect(body).not.toHaveProperty("temperature");
    expect(body).not.toHaveProperty("top_p");
    expect(warnings).toEqual([
      "anthropic: the thinking budget 500 is raised to 1024, Anthropic's smallest",
      "anthropic: temperature 0.2 is not sent: Anthropic allows only 1 with thinking on",
      "anthropic: top_p 0.5 is not sent: Anthropic allows only 0.95 to 1 with thinking on",
    ]);
    server.enqueue({ text: "cool" });
    await collect(backend.chatStream(conversation.slice(0, 2), [], { temperature: 0.2 }));
    expect(server.lastRequest!.body).toMatchObject({ temperature: 0.2 });
  });

  it("send a thinking block back only to the model that signed it", async () => {
    const server = suite.server();
    server.enqueue({ reasoning: "Hmm.", text: "Hello." });
    const first = await collect(make(server).chatStream(conversation.slice(0, 2), []));
    const history: Message[] = [
      ...conversation.slice(0, 2),
      first.done.message,
      { role: "user", content: "Again?" },
    ];
    const sent = async (model: string) => {
      server.enqueue({ text: "ok" });
      await collect(make(server, { model }).chatStream(history, [], { reasoningBudget: 2048 }));
      expect(server.lastRequest?.rejected).toBeUndefined();
      const turns = (server.lastRequest!.body as { messages: Array<{ content: Array<{ type: string }> }> })
        .messages;
      return turns[1]!.content.map((b) => b.type);
    };
    expect(await sent("claude-test")).toEqual(["thinking", "text"]);
    expect(await sent("claude-other")).toEqual(["text"]);
  });
});
