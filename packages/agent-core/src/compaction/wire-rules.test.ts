import {
  AnthropicBackend,
  type Backend,
  GeminiBackend,
  type Message,
  OllamaBackend,
  OpenAiBackend,
} from "@ollie/backends";
import { MockLlmServer, type MockProvider, type ScriptedCall } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { estimateTokens } from "../context/token-estimate.js";
import { COMPACTION_INSTRUCTIONS } from "./summary.js";

type Body = Record<string, unknown> & {
  messages?: Array<Record<string, unknown>>;
  contents?: Array<Record<string, unknown>>;
};

/** Each provider's rules for a valid conversation, checked on the body it was actually sent. */
const rules: Record<MockProvider, (body: Body) => string[]> = {
  openai: (b) =>
    toolResultsFollowCalls(
      b.messages!,
      (m) => m.tool_call_id as string,
      (m) => (m.tool_calls as Array<{ id: string }> | undefined)?.map((c) => c.id),
    ),
  ollama: (b) =>
    toolResultsFollowCalls(
      b.messages!,
      () => undefined,
      (m) => (m.tool_calls as unknown[] | undefined)?.map(() => undefined),
    ),
  anthropic: (b) => {
    const problems: string[] = [];
    const turns = b.messages!;
    if (turns[0]?.role !== "user") problems.push("the first turn is not the user's");
    for (let i = 0; i < turns.length; i++) {
      if (i > 0 && turns[i]!.role === turns[i - 1]!.role)
        problems.push(`turns ${i - 1} and ${i} have the same role`);
      const blocks = turns[i]!.content as Array<{ type: string; tool_use_id?: string; id?: string }>;
      const asked = new Set(
        ((turns[i - 1]?.content ?? []) as typeof blocks)
          .filter((x) => x.type === "tool_use")
          .map((x) => x.id),
      );
      for (const r of blocks.filter((x) => x.type === "tool_result")) {
        if (!asked.has(r.tool_use_id))
          problems.push(`tool_result ${r.tool_use_id} answers no tool_use of the turn before`);
      }
    }
    return problems;
  },
  gemini: (b) => {
    const problems: string[] = [];
    const turns = b.contents!;
    if (turns[0]?.role !== "user") problems.push("the first turn is not the user's");
    for (let i = 0; i < turns.length; i++) {
      if (i > 0 && turns[i]!.role === turns[i - 1]!.role)
        problems.push(`turns ${i - 1} and ${i} have the same role`);
      const parts = turns[i]!.parts as Array<Record<string, unknown>>;
      const responses = parts.filter((p) => p.functionResponse).length;
      const calls = ((turns[i - 1]?.parts ?? []) as typeof parts).filter((p) => p.functionCall).length;
      if (responses > 0 && responses !== calls)
        problems.push(`turn ${i} answers ${responses} calls; the turn before made ${calls}`);
    }
    return problems;
  },
};

function toolResultsFollowCalls(
  messages: Array<Record<string, unknown>>,
  idOf: (m: Record<string, unknown>) => string | undefined,
  callsOf: (m: Record<string, unknown>) => Array<string | undefined> | undefined,
): string[] {
  const problems: string[] = [];
  let open: Array<string | undefined> = [];
  for (const [i, m] of messages.entries()) {
    if (m.role === "assistant") open = callsOf(m) ?? [];
    else if (m.role === "tool") {
      const id = idOf(m);
      if (open.length === 0 || (id !== undefined && !open.includes(id)))
        problems.push(`tool message ${i} answers no call`);
    } else open = [];
  }
  return problems;
}

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
    for (const [provider, b] of backends) {
      server.enqueue({ text: "ok" });
      for await (const _ of b.chatStream([{ role: "system", content: "You read." }, ...history], [])) {
        // drain
      }
      expect(rules[provider](server.lastRequest!.body as Body), provider).toEqual([]);
    }

    // The rules do catch a broken one: the same history with a call's assistant message taken out.
    const cut = history.findIndex((m) => m.role === "assistant" && m.toolCalls?.length);
    const broken = history.filter((_, i) => i !== cut);
    for (const [provider, b] of backends) {
      server.enqueue({ text: "ok" });
      for await (const _ of b.chatStream(broken, [])) {
        // drain
      }
      expect(rules[provider](server.lastRequest!.body as Body), provider).not.toEqual([]);
    }
  });
});
