import {
  AnthropicBackend,
  type Backend,
  estimateTokens,
  GeminiBackend,
  type Message,
  OllamaBackend,
  OpenAiBackend,
} from "@ollie/backends";
import { MockLlmServer, type MockProvider, type ScriptedCall } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { COMPACTION_INSTRUCTIONS } from "./summary.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start();
});
afterAll(async () => server.close());

describe("a compacted history", () => {
  it("makes a valid request for every provider", async () => {
    let n = 0;
    const { agent, backend } = await scriptedAgent(
      (c: ScriptedCall) => {
        if (c.messages[0]?.content === COMPACTION_INSTRUCTIONS)
          return { text: '{"objective":"read","decisions":["read 1 to 5"]}' };
        n++;
        const usage = { input: estimateTokens(c.messages, c.tools), output: 20 };
        return n <= 12
          ? {
              text: `file ${n}`,
              toolCalls: [
                { name: "read", arguments: { n } },
                { name: "read", arguments: { n: n + 100 } },
              ],
              usage,
            }
          : { text: "done", usage };
      },
      {
        tools: tools(echoTool("read", { readSafe: true, run: (a) => `${a.n}: ${"text ".repeat(300)}` })),
        contextLength: 8000,
        safety: { replanRounds: 100 },
      },
    );
    await agent.submit("Read everything");
    const compacted = backend.calls.findIndex((c) => c.messages[0]?.content === COMPACTION_INSTRUCTIONS);
    expect(compacted).toBeGreaterThan(0);
    const history: Message[] = [...agent.history, { role: "user", content: "And now?" }];

    const backends: Array<[MockProvider, Backend]> = [
      ["openai", new OpenAiBackend({ baseUrl: server.baseUrl("openai"), model: "gpt-5-mini" })],
      [
        "anthropic",
        new AnthropicBackend({ baseUrl: server.baseUrl("anthropic"), model: "claude-sonnet-4-5" }),
      ],
      ["ollama", new OllamaBackend({ baseUrl: server.baseUrl("ollama"), model: "qwen3:8b" })],
      ["gemini", new GeminiBackend({ baseUrl: server.baseUrl("gemini"), model: "gemini-2.5-flash" })],
    ];
    // The mock checks each request against the vendor's rules and answers a broken one with a 400.
    const accepted = async (b: Backend, messages: Message[]) => {
      server.enqueue({ text: "ok" });
      for await (const _ of b.chatStream(messages, [])) {
        // drain
      }
      return server.lastRequest?.rejected;
    };
    for (const [provider, b] of backends) {
      expect(
        await accepted(b, [{ role: "system", content: "You read." }, ...history]),
        provider,
      ).toBeUndefined();
    }

    // Even a history broken by hand (a call's reply taken out, leaving its results orphaned) goes out valid.
    const cut = history.findIndex((m) => m.role === "assistant" && m.toolCalls?.length);
    const broken = history.filter((_, i) => i !== cut);
    for (const [provider, b] of backends) expect(await accepted(b, broken), provider).toBeUndefined();
  });
});
