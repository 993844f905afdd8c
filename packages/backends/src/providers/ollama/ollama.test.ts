import { describe, expect, it } from "vitest";
import { collect, conversation, providerSuite, weatherTool } from "../../__fixtures__/provider-suite.js";
import { OllamaBackend } from "./ollama-backend.js";

const make = (
  server: { baseUrl(p: "ollama"): string },
  extra: Partial<ConstructorParameters<typeof OllamaBackend>[0]> = {},
) => new OllamaBackend({ baseUrl: server.baseUrl("ollama"), model: "qwen3:8b", ...extra });

const suite = providerSuite({
  provider: "ollama",
  make: (s) => make(s),
  sse: false,
  retryAfter: 3,
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

  it("read the context window from /api/show, or the configured num_ctx", async () => {
    const server = suite.server();
    const backend = make(server);
    backend.setModel("mock-model");
    expect(await backend.contextLength()).toBe(32_768);
    expect(await make(server, { numCtx: 8192 }).contextLength()).toBe(8192);
    expect(await backend.models()).toEqual([{ id: "mock-model" }]);
  });
});
