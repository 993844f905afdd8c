import { describe, expect, it } from "vitest";
import { collect, conversation, providerSuite, weatherTool } from "../../__fixtures__/provider-suite.js";
import { RateLimitError } from "../../errors.js";
import { OpenAiBackend } from "./openai-backend.js";

const make = (
  server: { baseUrl(p: "openai"): string },
  extra: Partial<ConstructorParameters<typeof OpenAiBackend>[0]> = {},
) =>
  new OpenAiBackend({ baseUrl: server.baseUrl("openai"), model: "gpt-test", apiKey: "sk-secret", ...extra });

const suite = providerSuite({
  provider: "openai",
  make: (s) => make(s, { name: "openai" }),
  sse: true,
  retryAfter: 7,
  identifies: { model: true, id: "chatcmpl-mock" },
});

describe("openai: requests", () => {
  it("send roles, tool calls and results, tool schemas and parameters as chat completions wants them", async () => {
    const server = suite.server();
    server.enqueue({ text: "ok" });
    const backend = make(server, { headers: { "X-Title": "ollie" } });
    await collect(
      backend.chatStream(conversation, [weatherTool], {
        temperature: 0.2,
        topP: 0.9,
        maxTokens: 4096,
        stop: ["</end>"],
        seed: 7,
        reasoningEffort: "medium",
        extra: { prompt_cache_key: "session-1" },
      }),
    );
    const req = server.lastRequest!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-secret");
    expect(req.headers["x-title"]).toBe("ollie");
    expect(req.body).toEqual({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "Weather in Paris and Tokyo?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_A1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris"}' },
            },
            {
              id: "call_B2",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Tokyo"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_A1", content: "18C cloudy" },
        { role: "tool", tool_call_id: "call_B2", content: "24C sunny" },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather",
            parameters: weatherTool.parameters,
          },
        },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 4096,
      stop: ["</end>"],
      seed: 7,
      reasoning_effort: "medium",
      prompt_cache_key: "session-1",
    });
  });

  it("use the developer role and max_completion_tokens when told to", async () => {
    const server = suite.server();
    server.enqueue({ text: "ok" });
    await collect(
      make(server, { systemRole: "developer", maxTokensField: "max_completion_tokens" }).chatStream(
        conversation.slice(0, 2),
        [],
        { maxTokens: 10 },
      ),
    );
    const body = server.lastRequest!.body as Record<string, unknown>;
    expect((body.messages as Array<{ role: string }>)[0]!.role).toBe("developer");
    expect(body.max_completion_tokens).toBe(10);
    expect(body.tools).toBeUndefined();
  });

  it("reads the rate-limit wait from an HTTP date", async () => {
    const server = suite.server();
    server.enqueue({
      fault: { type: "rate_limit", retryAfter: new Date(Date.now() + 20_000).toUTCString() },
    });
    const err = await collect(make(server).chatStream(conversation.slice(0, 2), [])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterMs).toBeGreaterThan(15_000);
    expect((err as RateLimitError).retryAfterMs).toBeLessThanOrEqual(20_000);
  });

  it("reports provider cost and reasoning tokens when the server gives them", async () => {
    const server = suite.server();
    server.enqueue({ text: "ok", usage: { input: 12, output: 40, reasoning: 31, cost: 0.0042 } });
    const r = await collect(make(server).chatStream(conversation.slice(0, 2), []));
    expect(r.usage).toEqual({
      inputTokens: 12,
      outputTokens: 40,
      cachedInputTokens: 0,
      cacheCreationTokens: 0,
      reasoningTokens: 31,
      costUsd: 0.0042,
    });
  });

  it("lists models and finds the context window", async () => {
    const server = suite.server();
    const backend = make(server);
    backend.setModel("mock-model");
    expect(await backend.models()).toEqual([{ id: "mock-model", contextLength: 32_768 }]);
    expect(await backend.contextLength()).toBe(32_768);
    const listed = server.requests.filter((r) => r.path === "/v1/models").length;
    await backend.contextLength();
    expect(server.requests.filter((r) => r.path === "/v1/models").length).toBe(listed);
  });
});
