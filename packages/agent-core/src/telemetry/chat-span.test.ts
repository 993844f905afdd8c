import { OpenAiBackend } from "@ollie/backends";
import { MockLlmServer } from "@ollie/backends/testing";
import { setCaptureMessageContent } from "@ollie/telemetry";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { installOtel, isChildOf, type Otel } from "../__fixtures__/otel.js";
import { Agent } from "../agent/agent.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start();
});
afterAll(async () => server.close());

let otel: Otel;
beforeEach(() => {
  otel = installOtel();
});
afterEach(() => otel.uninstall());

const KEY = "sk-test-do-not-export";

const httpAgent = () =>
  Agent.create({
    backend: new OpenAiBackend({
      name: "lab",
      baseUrl: server.baseUrl("openai"),
      model: "gpt-5-mini",
      apiKey: KEY,
    }),
    prompt: "You are a test agent.",
    retry: { baseDelayMs: 1, jitter: 0 },
  });

describe("a model request's chat span", () => {
  it("names the request, the server by its host alone, the reply, its usage and finish, its retries and the time to its first chunk", async () => {
    server.enqueue(
      { fault: { type: "server_error", status: 503 } },
      { text: "Hello.", usage: { input: 120, output: 9, cachedInput: 100, reasoning: 4 } },
    );
    const agent = await httpAgent();
    expect((await agent.submit("Hi")).status).toBe("done");

    const chat = otel.span("chat gpt-5-mini");
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(isChildOf(chat, otel.span("invoke_agent"))).toBe(true);
    const port = Number(new URL(server.url).port);
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-5-mini",
      "gen_ai.request.stream": true,
      "gen_ai.response.model": "gpt-5-mini",
      "gen_ai.response.id": "chatcmpl-mock",
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 9,
      "gen_ai.usage.cache_read.input_tokens": 100,
      "gen_ai.usage.cache_creation.input_tokens": 0,
      "gen_ai.usage.reasoning.output_tokens": 4,
      "gen_ai.conversation.id": agent.sessionId,
      "server.address": "127.0.0.1",
      "server.port": port,
      "ollie.purpose": "turn",
      "ollie.backend": "lab",
    });
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(chat.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        "ollie.retry",
        {
          "ollie.retry.attempt": 1,
          "ollie.retry.max_attempts": 6,
          "ollie.retry.delay_ms": 1,
          "error.type": "TransientError",
        },
      ],
    ]);
    // From the start of the attempt that answered to its first event: within the request.
    const ttft = chat.attributes["gen_ai.response.time_to_first_chunk"] as number;
    const duration = chat.duration[0] + chat.duration[1] / 1e9;
    expect(ttft).toBeGreaterThan(0);
    expect(ttft).toBeLessThan(duration);
    // Neither the URL nor the key.
    expect(JSON.stringify(otel.spans().map((s) => [s.attributes, s.events]))).not.toMatch(/http:|sk-test/);
  });

  it("says why it failed, with no reply to time or count", async () => {
    server.enqueue({ fault: { type: "auth" } });
    const agent = await httpAgent();
    expect((await agent.submit("Hi")).status).toBe("error");
    const chat = otel.span("chat gpt-5-mini");
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat.attributes["error.type"]).toBe("AuthError");
    for (const name of ["time_to_first_chunk", "finish_reasons", "response.model"])
      expect(chat.attributes[`gen_ai.response.${name}`]).toBeUndefined();
    expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeUndefined();
  });

  it("says a request the turn's interruption cut short was interrupted", async () => {
    const { agent } = await scriptedAgent([{ text: "a long answer, slowly", chunkSize: 1, delayMs: 20 }]);
    const streaming = new Promise<void>((resolve) => {
      agent.subscribe((e) => e.type === "assistant" && resolve());
    });
    const turn = agent.submit("Hi");
    await streaming;
    agent.interrupt();
    expect((await turn).status).toBe("interrupted");
    const chat = otel.span("chat scripted-model");
    expect(chat.attributes["error.type"]).toBe("interrupted");
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("carries no message contents unless asked to", async () => {
    const { agent } = await scriptedAgent([{ text: "Hello." }]);
    await agent.submit("Hi");
    const chat = otel.span("chat scripted-model");
    for (const name of ["input.messages", "output.messages", "system_instructions"])
      expect(chat.attributes[`gen_ai.${name}`]).toBeUndefined();
  });

  it("carries the request's and the reply's contents, as the conventions' JSON, when asked to", async () => {
    setCaptureMessageContent(true);
    const { agent } = await scriptedAgent(
      [call("read", { path: "a" }, "Reading."), { text: "It says hi." }],
      {
        tools: tools(echoTool("read")),
      },
    );
    await agent.submit("Read a");
    const [first, second] = otel.spans().filter((s) => s.name === "chat scripted-model");
    const json = (value: unknown) => JSON.parse(value as string) as unknown;
    expect(json(first!.attributes["gen_ai.system_instructions"])).toEqual([
      { type: "text", content: "You are a test agent.\n\n## Tools\n\n- read: read things" },
    ]);
    expect(json(first!.attributes["gen_ai.input.messages"])).toEqual([
      { role: "user", parts: [{ type: "text", content: "Read a" }] },
    ]);
    expect(json(first!.attributes["gen_ai.output.messages"])).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "text", content: "Reading." },
          { type: "tool_call", id: "call_scripted_0", name: "read", arguments: { path: "a" } },
        ],
        finish_reason: "tool_call",
      },
    ]);
    expect(json(second!.attributes["gen_ai.input.messages"])).toEqual([
      { role: "user", parts: [{ type: "text", content: "Read a" }] },
      {
        role: "assistant",
        parts: [
          { type: "text", content: "Reading." },
          { type: "tool_call", id: "call_scripted_0", name: "read", arguments: { path: "a" } },
        ],
      },
      {
        role: "tool",
        parts: [{ type: "tool_call_response", id: "call_scripted_0", response: 'read {"path":"a"}' }],
      },
    ]);
  });

  it("cuts long contents short, saying how much was left out", async () => {
    setCaptureMessageContent(true);
    const { agent } = await scriptedAgent([{ text: "x".repeat(20_000), chunkSize: 5_000 }]);
    await agent.submit("Hi");
    const output = otel.span("chat scripted-model").attributes["gen_ai.output.messages"] as string;
    expect(output.length).toBeLessThan(17_000);
    expect(output).toMatch(/… \[\d+ more characters\]$/);
  });
});
