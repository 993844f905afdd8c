import { AnthropicBackend, type Backend, GeminiBackend, OllamaBackend, OpenAiBackend } from "@ollie/backends";
import { MockLlmServer, type RecordedRequest } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { only } from "../__fixtures__/agents.js";
import type { AgentEvent } from "../events/agent-events.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolSet } from "../tools/tool-set.js";
import { Agent } from "./agent.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start({ models: [{ id: "qwen3:8b", contextLength: 40_960 }] });
});
afterAll(async () => server.close());

/** What is at `path` in a request body, or undefined. */
const at = (value: unknown, ...path: Array<string | number>): unknown =>
  path.reduce<unknown>((v, key) => (v as Record<string | number, unknown> | undefined)?.[key], value);
const each = (value: unknown, ...path: Array<string | number>) => (at(value, ...path) as unknown[]) ?? [];

/** Each provider, and where its request carries a tool's JSON Schema. */
const providers: Record<string, { backend: () => Backend; schemas: (body: unknown) => unknown[] }> = {
  anthropic: {
    backend: () =>
      new AnthropicBackend({ baseUrl: server.baseUrl("anthropic"), model: "claude-x", apiKey: "k" }),
    schemas: (body) => each(body, "tools").map((t) => at(t, "input_schema")),
  },
  openai: {
    backend: () => new OpenAiBackend({ baseUrl: server.baseUrl("openai"), model: "gpt-4.1", apiKey: "k" }),
    schemas: (body) => each(body, "tools").map((t) => at(t, "function", "parameters")),
  },
  gemini: {
    backend: () =>
      new GeminiBackend({ baseUrl: server.baseUrl("gemini"), model: "gemini-2.5-flash", apiKey: "k" }),
    schemas: (body) =>
      each(body, "tools", 0, "functionDeclarations").map((d) => at(d, "parametersJsonSchema")),
  },
  ollama: {
    backend: () => new OllamaBackend({ baseUrl: server.baseUrl("ollama"), model: "qwen3:8b" }),
    schemas: (body) => each(body, "tools").map((t) => at(t, "function", "parameters")),
  },
};

/** A zod-typed tool whose run records what it was given: the words, split by the schema's transform. */
function wordCount() {
  const received: unknown[] = [];
  const tool = defineTool({
    name: "word_count",
    description: "Counts the words in a text",
    input: z.object({
      text: z
        .string()
        .describe("the text to count")
        .transform((text) => text.split(/\s+/).filter(Boolean)),
    }),
    readSafe: true,
    run: ({ text }, { signal }) => {
      received.push({ text, aborted: signal.aborted });
      return String(text.length);
    },
  });
  return { tool, received };
}

const chatRequests = (from: number): RecordedRequest[] =>
  server.requests.slice(from).filter((r) => r.method === "POST" && at(r.body, "tools") !== undefined);

describe("a turn with a zod-typed tool", () => {
  for (const [provider, { backend, schemas }] of Object.entries(providers)) {
    it(`${provider}: the request carries the schema's JSON Schema; a misfit call is refused in the schema's words, a fitting one reaches run parsed`, async () => {
      const { tool, received } = wordCount();
      const agent = await Agent.create({ backend: backend(), tools: new ToolSet([tool]) });
      const events: AgentEvent[] = [];
      agent.subscribe((e) => events.push(e));
      const from = server.requests.length;
      server.enqueue(
        { toolCalls: [{ name: "word_count", arguments: { text: 4 } }] },
        { toolCalls: [{ name: "word_count", arguments: { text: "the quick  brown fox" } }] },
        { text: "There are 4 words." },
      );

      const outcome = await agent.submit("How many words are in 'the quick brown fox'?");

      expect(outcome).toMatchObject({ status: "done", steps: 2, reply: { content: "There are 4 words." } });
      const requests = chatRequests(from);
      expect(requests).toHaveLength(3);
      for (const request of requests) expect(request.rejected).toBeUndefined();
      expect(schemas(requests[0]!.body)).toEqual([
        {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { text: { type: "string", description: "the text to count" } },
          required: ["text"],
        },
      ]);

      const refusal =
        "word_count was not run: its arguments do not fit its schema: text: Invalid input: expected string, received number. Call it again with arguments that do.";
      expect(only(events, "tool").map((e) => [e.result.content, e.result.isError === true])).toEqual([
        [refusal, true],
        ["4", false],
      ]);
      // The model read the refusal: the next request carries it as the call's result.
      expect(JSON.stringify(requests[1]!.body)).toContain(refusal);
      expect(received).toEqual([{ text: ["the", "quick", "brown", "fox"], aborted: false }]);
      await agent.close();
    });
  }
});
