import { describe, expect, it } from "vitest";
import { collect, conversation, providerSuite, weatherTool } from "../../__fixtures__/provider-suite.js";
import { AuthError, RateLimitError, TransientError } from "../../errors.js";
import type { Message } from "../../types.js";
import { GeminiBackend } from "./gemini-backend.js";

const make = (server: { baseUrl(p: "gemini"): string }) =>
  new GeminiBackend({ baseUrl: server.baseUrl("gemini"), model: "gemini-test", apiKey: "AIza-secret" });

const suite = providerSuite({
  provider: "gemini",
  make,
  sse: true,
  sendsIds: false,
  retryAfter: 31,
  identifies: { model: true, id: "mock" },
});

describe("gemini: requests", () => {
  it("send the system instruction, user and model turns, function responses and generation config", async () => {
    const server = suite.server();
    server.enqueue({ text: "ok" });
    server.signatures.issue("gemini", "gemini-test", "CiQBVKhc");
    const messages = conversation.map((m) =>
      m.role === "assistant"
        ? { ...m, toolCalls: m.toolCalls!.map((c, i) => (i === 0 ? { ...c, signature: "CiQBVKhc" } : c)) }
        : m,
    );
    await collect(
      make(server).chatStream(messages, [weatherTool], {
        maxTokens: 8192,
        temperature: 1,
        topP: 0.95,
        stop: ["</end>"],
        seed: 3,
        reasoningBudget: 1024,
      }),
    );
    const req = server.lastRequest!;
    expect(req.path).toBe("/v1beta/models/gemini-test:streamGenerateContent");
    expect(req.headers["x-goog-api-key"]).toBe("AIza-secret");
    expect(req.body).toEqual({
      systemInstruction: { parts: [{ text: "You are a coding agent." }] },
      contents: [
        { role: "user", parts: [{ text: "Weather in Paris and Tokyo?" }] },
        {
          role: "model",
          parts: [
            {
              functionCall: { id: "call_A1", name: "get_weather", args: { city: "Paris" } },
              thoughtSignature: "CiQBVKhc",
            },
            { functionCall: { id: "call_B2", name: "get_weather", args: { city: "Tokyo" } } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { id: "call_A1", name: "get_weather", response: { output: "18C cloudy" } } },
            { functionResponse: { id: "call_B2", name: "get_weather", response: { output: "24C sunny" } } },
          ],
        },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: "get_weather",
              description: "Current weather",
              parametersJsonSchema: weatherTool.parameters,
            },
          ],
        },
      ],
      generationConfig: {
        temperature: 1,
        topP: 0.95,
        maxOutputTokens: 8192,
        stopSequences: ["</end>"],
        seed: 3,
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      },
    });
  });

  it("make up stable ids for calls without one, and leave them out when the calls go back", async () => {
    const server = suite.server();
    server.enqueue({
      toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }],
      reasoningSignature: "sig-1",
    });
    const r = await collect(make(server).chatStream(conversation.slice(0, 2), [weatherTool]));
    const call = r.calls[0]!;
    expect(call.id).toBe("gemini-mock-0");
    expect(call.signature).toBe("sig-1");
    server.enqueue({ text: "18C" });
    await collect(
      make(server).chatStream(
        [
          ...conversation.slice(0, 2),
          r.done.message,
          { role: "tool", toolCallId: call.id, name: call.name, content: "18C" },
        ],
        [weatherTool],
      ),
    );
    const contents = (server.lastRequest!.body as { contents: Array<{ parts: unknown[] }> }).contents;
    expect(contents[1]!.parts).toEqual([
      { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sig-1" },
    ]);
    expect(contents[2]!.parts).toEqual([
      { functionResponse: { name: "get_weather", response: { output: "18C" } } },
    ]);
  });

  it("take the rate-limit wait from RetryInfo, and a bad key from ErrorInfo", async () => {
    const server = suite.server();
    server.enqueue({ fault: { type: "rate_limit", retryAfter: 31 } });
    const limited = await collect(make(server).chatStream(conversation.slice(0, 2), [])).catch(
      (e: unknown) => e,
    );
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfterMs).toBe(31_000);
    server.enqueue({ fault: { type: "auth" } });
    const badKey = await collect(make(server).chatStream(conversation.slice(0, 2), [])).catch(
      (e: unknown) => e,
    );
    expect(badKey).toBeInstanceOf(AuthError);
    expect((badKey as AuthError).status).toBe(400);
  });

  it("count prompt tokens with cached ones, and output with thoughts", async () => {
    const server = suite.server();
    server.enqueue({
      text: "ok",
      usage: { input: 48211, cachedInput: 45012, output: 1822, reasoning: 1310 },
    });
    const r = await collect(make(server).chatStream(conversation.slice(0, 2), []));
    expect(r.usage).toEqual({
      inputTokens: 48211,
      outputTokens: 1822,
      cachedInputTokens: 45012,
      cacheCreationTokens: 0,
      reasoningTokens: 1310,
    });
  });

  it("find the context window in the model list", async () => {
    const server = suite.server();
    const backend = make(server);
    backend.setModel("mock-model");
    expect(await backend.contextLength()).toBe(32_768);
  });

  it("keep the message of an error object pretty-printed over several lines mid-stream", async () => {
    const server = suite.server();
    server.enqueue({ fault: { type: "stream_error", afterText: "partial", pretty: true } });
    const err = await collect(make(server).chatStream(conversation.slice(0, 2), [])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect((err as Error).message).toMatch(/An internal error has occurred/);
  });

  it("send a text part's thought signature back on the text, to the model that made it", async () => {
    const server = suite.server();
    const backend = new GeminiBackend({
      baseUrl: server.baseUrl("gemini"),
      model: "gemini-3-pro-preview",
      apiKey: "AIza-secret",
    });
    server.enqueue({ text: "The sum is 5050.", reasoningSignature: "Cs0Bsigned" });
    const first = await collect(backend.chatStream(conversation.slice(0, 2), []));
    const signature = first.done.message.reasoning?.at(-1)?.signature;
    expect(signature).toBe("Cs0Bsigned");
    const history: Message[] = [
      ...conversation.slice(0, 2),
      first.done.message,
      { role: "user", content: "And?" },
    ];
    server.enqueue({ text: "ok" });
    await collect(backend.chatStream(history, []));
    expect(server.lastRequest?.rejected).toBeUndefined();
    const contents = (server.lastRequest!.body as { contents: Array<{ parts: unknown[] }> }).contents;
    expect(contents[1]!.parts).toEqual([{ text: "The sum is 5050.", thoughtSignature: signature }]);
  });
});
