import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, weatherTool } from "../__fixtures__/conversation.js";
import type { Backend } from "../backend.js";
import type { ApiDialect } from "../testing/mock-provider.js";
import { MockLlmServer } from "../testing/mock-server.js";
import type { GenerationParams, Message } from "../types.js";
import { AnthropicBackend } from "./anthropic/anthropic-backend.js";
import { GeminiBackend } from "./gemini/gemini-backend.js";
import { OllamaBackend } from "./ollama/ollama-backend.js";
import { OpenAiBackend } from "./openai/openai-backend.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start();
});
afterAll(async () => server.close());

interface Side {
  label: string;
  provider: ApiDialect;
  model: string;
  params: GenerationParams;
}

const THINKING: Record<ApiDialect, GenerationParams> = {
  anthropic: { reasoningBudget: 2048 },
  gemini: { reasoningBudget: 2048 },
  openai: { reasoningEffort: "high" },
  ollama: { reasoningEffort: "high" },
};

const side = (provider: ApiDialect, model: string): Side => ({
  label: `${provider} ${model}`,
  provider,
  model,
  params: THINKING[provider],
});

// Every provider, plus a second model of the two whose signatures are bound to the model that made them.
const SIDES: Side[] = [
  side("anthropic", "claude-sonnet-4-5"),
  side("anthropic", "claude-opus-4-1"),
  side("gemini", "gemini-2.5-flash"),
  side("gemini", "gemini-3-pro-preview"),
  side("openai", "gpt-4.1"),
  side("ollama", "qwen3:8b"),
];

function backendOf(s: Side): Backend {
  const base = server.baseUrl(s.provider);
  switch (s.provider) {
    case "anthropic":
      return new AnthropicBackend({ baseUrl: base, model: s.model, apiKey: "sk-ant-test" });
    case "gemini":
      return new GeminiBackend({ baseUrl: base, model: s.model, apiKey: "AIza-test" });
    case "openai":
      return new OpenAiBackend({ baseUrl: base, model: s.model, apiKey: "sk-test" });
    case "ollama":
      return new OllamaBackend({ baseUrl: base, model: s.model });
  }
}

/** One request from `s` over `history`, checked by the mock against the vendor's rules. */
async function step(s: Side, history: Message[], reply: Parameters<MockLlmServer["enqueue"]>[0]) {
  server.enqueue(reply);
  const r = await collect(backendOf(s).chatStream(history, [weatherTool], s.params));
  expect(server.lastRequest?.rejected, `${s.label} refused the request`).toBeUndefined();
  return r.done.message;
}

describe("switching model or provider mid-session, with thinking on", () => {
  for (const from of SIDES) {
    for (const to of SIDES) {
      if (from === to) continue;
      it(`${from.label} → ${to.label}, in the middle of a tool loop and at the next prompt`, async () => {
        const history: Message[] = [
          { role: "system", content: "You are a coding agent." },
          { role: "user", content: "Weather in Paris?" },
        ];
        const calling = await step(from, history, {
          reasoning: "Paris needs a lookup.",
          toolCalls: [{ id: "call_sw1", name: "get_weather", arguments: { city: "Paris" } }],
        });
        history.push(calling, {
          role: "tool",
          toolCallId: calling.toolCalls![0]!.id,
          name: "get_weather",
          content: "18C cloudy",
        });
        history.push(await step(to, history, { reasoning: "It is mild.", text: "18C and cloudy." }));
        history.push({ role: "user", content: "And tomorrow?" });
        history.push(await step(to, history, { reasoning: "Unknown.", text: "No forecast here." }));
        history.push({ role: "user", content: "Thanks." });
        await step(from, history, { reasoning: "Closing.", text: "You're welcome." });
      });
    }
  }
});
