import {
  AnthropicBackend,
  AuthError,
  ContextOverflowError,
  type Message,
  OpenAiBackend,
  RateLimitError,
  ToolUnsupportedError,
  UnreachableError,
} from "@ollie/backends";
import { closedPort, MockLlmServer } from "@ollie/backends/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { echoTool, ended, only, tools, WAIT } from "../__fixtures__/agents.js";
import { Agent } from "../agent/agent.js";
import type { AgentOptions } from "../agent/agent-options.js";
import type { AgentEvent } from "../events/agent-events.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start();
});
afterAll(async () => server.close());

async function httpAgent(options: Partial<AgentOptions> = {}) {
  const backend = new OpenAiBackend({
    name: "lab",
    baseUrl: server.baseUrl("openai"),
    model: "gpt-5-mini",
    apiKey: "sk-test",
  });
  const agent = await Agent.create({
    backend,
    tools: tools(echoTool("read", { readSafe: true })),
    retry: { baseDelayMs: 10 },
    ...options,
  });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  return { agent, events };
}

describe("model requests over HTTP", () => {
  it("wait out a 429 for the provider's Retry-After, then carry on", async () => {
    server.enqueue({ fault: { type: "rate_limit", retryAfter: 1 } }, { text: "Now I can answer." });
    const { agent, events } = await httpAgent();
    const started = Date.now();
    const outcome = await agent.submit("Hello");
    expect(outcome).toMatchObject({ status: "done", reply: { content: "Now I can answer." } });
    expect(only(events, "limitretry")).toEqual([
      {
        type: "limitretry",
        attempt: 1,
        maxAttempts: 6,
        delayMs: 1000,
        message: expect.stringContaining("429"),
        error: expect.objectContaining({ name: "RateLimitError", status: 429, retryAfterMs: 1000 }),
      },
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it("retry a stream cut in the middle of a tool call, and run the call once", async () => {
    const chats = () => server.requests.filter((r) => r.method === "POST").length;
    const before = chats();
    server.enqueue(
      {
        toolCalls: [{ name: "read", arguments: { path: "src/index.ts", why: "to see the exports" } }],
        chunkSize: 3,
        cutAfter: 6,
      },
      { toolCalls: [{ name: "read", arguments: { path: "src/index.ts" } }] },
      { text: "Read it." },
    );
    const { agent, events } = await httpAgent();
    const outcome = await agent.submit("Look at the exports");
    expect(outcome).toMatchObject({ status: "done", steps: 1 });
    expect(only(events, "retry")).toHaveLength(1);
    expect(only(events, "call").map((e) => e.call.arguments)).toEqual([{ path: "src/index.ts" }]);
    expect(chats() - before).toBe(3);
  });

  it("treat a stream that goes silent as dropped", async () => {
    server.enqueue(
      { text: "this arrives far too slowly", chunkSize: 2, delayMs: 2000 },
      { text: "Quick now." },
    );
    const { agent, events } = await httpAgent({ retry: { baseDelayMs: 10, idleTimeoutMs: 300 } });
    const outcome = await agent.submit("Hello");
    expect(outcome).toMatchObject({ status: "done", reply: { content: "Quick now." } });
    expect(only(events, "retry")).toEqual([
      expect.objectContaining({
        message: "lab: the stream delivered nothing for 0.3 s",
        error: expect.objectContaining({ name: "StreamIdleError", provider: "openai", profile: "lab" }),
      }),
    ]);
  });

  it("give up after the policy's attempts, keeping the last error's provider, profile and status", async () => {
    server.enqueue(
      { fault: { type: "server_error", status: 503 } },
      { fault: { type: "server_error", status: 502 } },
      { fault: { type: "server_error", status: 500 } },
    );
    const { agent, events } = await httpAgent({ retry: { baseDelayMs: 5, maxAttempts: 3 } });
    const outcome = await agent.submit("Hello");
    expect(ended(outcome, "error").error).toMatchObject({
      name: "TransientError",
      provider: "openai",
      profile: "lab",
      status: 500,
      message: expect.stringMatching(/^lab 500: /),
    });
    expect(only(events, "retry").map((e) => [e.attempt, e.maxAttempts])).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(only(events, "error")).toHaveLength(1);
  });

  it("try a backend that refuses the connection once more, soon, then end the turn", async () => {
    const port = await closedPort();
    const backend = new OpenAiBackend({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", apiKey: "k" });
    // The policy's other retries are many and slow: none of them applies to a backend that is not there.
    const { agent, events } = await httpAgent({ backend, retry: { baseDelayMs: 60_000 } });
    const outcome = await agent.submit("Hello");
    const { error } = ended(outcome, "error");
    expect(error).toBeInstanceOf(UnreachableError);
    expect(error).toMatchObject({ provider: "openai", code: "ECONNREFUSED" });
    expect(only(events, "retry")).toEqual([
      {
        type: "retry",
        attempt: 1,
        maxAttempts: 2,
        delayMs: 300,
        message: expect.stringContaining("ECONNREFUSED"),
        error: expect.any(UnreachableError),
      },
    ]);
    expect(only(events, "error")).toHaveLength(1);
  });

  it("end the turn on errors that a retry would not fix", async () => {
    for (const [fault, type] of [
      [{ type: "auth" }, AuthError],
      [{ type: "tool_unsupported" }, ToolUnsupportedError],
    ] as const) {
      server.enqueue({ fault });
      const { agent, events } = await httpAgent();
      const outcome = await agent.submit("Hello");
      expect(ended(outcome, "error").error).toBeInstanceOf(type);
      expect(only(events, "retry")).toEqual([]);
    }
  });

  it("compact on a context overflow and retry once; with automatic compaction off, say so", async () => {
    const earlier: Message[] = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0
        ? { role: "user", content: `question ${i}: ${"why is that so? ".repeat(30)}` }
        : { role: "assistant", content: `answer ${i}: ${"because it is. ".repeat(30)}` },
    );
    server.enqueue({ fault: { type: "context_overflow" } });
    const off = await httpAgent({ history: earlier, compaction: { auto: false } });
    const failed = await off.agent.submit("Hello");
    const { error } = ended(failed, "error");
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(String(error)).toContain("automatic compaction is off");

    const summary = { objective: "answer questions", constraints: [], decisions: ["answered 0 to 10"] };
    server.enqueue(
      { fault: { type: "context_overflow" } },
      { text: JSON.stringify(summary) },
      { text: "Fits now." },
    );
    const on = await httpAgent({ history: earlier });
    expect(await on.agent.submit("Hello")).toMatchObject({ status: "done", reply: { content: "Fits now." } });
    expect(only(on.events, "compaction")).toEqual([
      expect.objectContaining({ trigger: "overflow", dropped: 5 }),
    ]);
    const retried = server.lastRequest!.body as { messages: Array<{ role: string; content: string }> };
    expect(retried.messages[0]!.role).toBe("system");
    expect(retried.messages[1]!.content).toMatch(
      /^\[ollie\] The conversation before this point was compacted\./,
    );
    expect(retried.messages.at(-1)).toEqual({ role: "user", content: "Hello" });
  });

  it("let the turnError hook take the first failure over", async () => {
    server.enqueue({ fault: { type: "rate_limit", retryAfter: 30 } });
    const seen: unknown[] = [];
    const { agent, events } = await httpAgent({
      hooks: {
        turnError: async (payload) => {
          seen.push(payload);
          return true;
        },
      },
    });
    const outcome = await agent.submit("Hello");
    expect(ended(outcome, "handled").error).toBeInstanceOf(RateLimitError);
    expect(seen).toEqual([
      expect.objectContaining({
        event: "turnError",
        error_type: "RateLimitError",
        status: 429,
        provider: "openai",
        backend: "lab",
        retry_after_ms: 30_000,
        model: "gpt-5-mini",
      }),
    ]);
    expect(only(events, "limitretry")).toEqual([]);
  });

  it("close the HTTP request at once when the turn is interrupted", async () => {
    const disconnects = server.disconnects;
    server.enqueue({ text: "a long and slow answer", chunkSize: 1, delayMs: 50 });
    const backend = new AnthropicBackend({
      baseUrl: server.baseUrl("anthropic"),
      model: "claude-sonnet-4-5",
    });
    const agent = await Agent.create({ backend });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => events.push(e));
    const turn = agent.submit("Hello");
    await vi.waitFor(() => expect(only(events, "assistant").length).toBeGreaterThanOrEqual(2), WAIT);
    agent.interrupt();
    expect((await turn).status).toBe("interrupted");
    await server.waitForDisconnects(disconnects + 1);
    expect(agent.history.at(-1)).toMatchObject({ role: "assistant", content: expect.stringMatching(/^a /) });
  });
});
