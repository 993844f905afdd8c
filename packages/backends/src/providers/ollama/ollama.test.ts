import { describe, expect, it } from "vitest";
import { collect, conversation, providerSuite, weatherTool } from "../../__fixtures__/provider-suite.js";
import { MockLlmServer } from "../../testing/mock-server.js";
import type { Message } from "../../types.js";
import { OLLAMA_DEFAULT_NUM_CTX, OllamaBackend } from "./ollama-backend.js";

const make = (
  server: { baseUrl(p: "ollama"): string },
  extra: Partial<ConstructorParameters<typeof OllamaBackend>[0]> = {},
) => new OllamaBackend({ baseUrl: server.baseUrl("ollama"), model: "qwen3:8b", ...extra });

const suite = providerSuite({
  provider: "ollama",
  make: (s) => make(s),
  sse: false,
  retryAfter: 3,
  identifies: { model: true },
});

describe("ollama: requests", () => {
  it("send tool arguments as objects, tool results with the tool's name, and sampling as options", async () => {
    const server = suite.server();
    server.enqueue({ text: "ok" });
    await collect(
      make(server, { numCtx: 32_768 }).chatStream(conversation, [weatherTool], {
        maxTokens: 4096,
        temperature: 0.2,
        topP: 0.9,
        seed: 1,
        stop: ["</end>"],
        reasoningEffort: "high",
      }),
    );
    expect(server.lastRequest!.body).toEqual({
      model: "qwen3:8b",
      stream: true,
      messages: [
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "Weather in Paris and Tokyo?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "call_A1", function: { index: 0, name: "get_weather", arguments: { city: "Paris" } } },
            { id: "call_B2", function: { index: 1, name: "get_weather", arguments: { city: "Tokyo" } } },
          ],
        },
        { role: "tool", tool_name: "get_weather", tool_call_id: "call_A1", content: "18C cloudy" },
        { role: "tool", tool_name: "get_weather", tool_call_id: "call_B2", content: "24C sunny" },
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
      options: {
        num_ctx: 32_768,
        num_predict: 4096,
        temperature: 0.2,
        top_p: 0.9,
        seed: 1,
        stop: ["</end>"],
      },
      think: "high",
    });
  });

  it("ask for a known window on every request: num_ctx, else the model's trained length capped at the default", async () => {
    const server = await MockLlmServer.start({
      models: [
        { id: "long-model", contextLength: 40_960 },
        { id: "short-model", contextLength: 8192 },
      ],
    });
    try {
      const window = async (backend: OllamaBackend) => {
        server.enqueue({ text: "ok" });
        await collect(backend.chatStream(conversation.slice(0, 2), []));
        const sent = (server.lastRequest!.body as { options?: { num_ctx?: number } }).options?.num_ctx;
        const planned = await backend.contextLength();
        expect(planned).toBe(sent);
        return sent;
      };
      expect(await window(make(server, { model: "long-model" }))).toBe(OLLAMA_DEFAULT_NUM_CTX);
      expect(await window(make(server, { model: "short-model" }))).toBe(8192);
      expect(await window(make(server, { model: "long-model", numCtx: 32_768 }))).toBe(32_768);
      // A server that cannot say (no /api/show figure) still gets the default asked for.
      expect(await window(make(server, { model: "unlisted" }))).toBe(OLLAMA_DEFAULT_NUM_CTX);
      expect(await make(server).models()).toEqual([{ id: "long-model" }, { id: "short-model" }]);
    } finally {
      await server.close();
    }
  });

  it("estimate the prompt when Ollama does not count it (a prompt it had cached)", async () => {
    const server = suite.server();
    const long: Message[] = [
      ...conversation,
      { role: "assistant", content: "x".repeat(8000) },
      { role: "user", content: "and now?" },
    ];
    server.enqueue({ text: "ok", usage: { input: null, output: 3 } });
    const missing = await collect(make(server).chatStream(long, []));
    expect(missing.usage).toMatchObject({ inputEstimated: true, outputTokens: 3 });
    expect(missing.usage!.inputTokens).toBeGreaterThan(2000);
    expect(missing.usage!.cachedInputTokens).toBe(missing.usage!.inputTokens);
    server.enqueue({ text: "ok", usage: { input: 17, output: 3 } });
    const partial = await collect(make(server).chatStream(long, []));
    expect(partial.usage).toMatchObject({ inputEstimated: true, inputTokens: missing.usage!.inputTokens });
    expect(partial.usage!.cachedInputTokens).toBe(missing.usage!.inputTokens - 17);
  });
});
