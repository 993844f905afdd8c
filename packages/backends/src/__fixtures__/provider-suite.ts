import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthError,
  ContextOverflowError,
  RateLimitError,
  ToolUnsupportedError,
  TransientError,
} from "../errors.js";
import type { MockFault, MockReply } from "../testing/mock-reply.js";
import { MockLlmServer } from "../testing/mock-server.js";
import type { Message, Tool } from "../types.js";
import { collect, conversation, type SuiteOptions, weatherTool } from "./conversation.js";
import { replayScenarios } from "./replay-scenarios.js";

export { collect, conversation, type SuiteOptions, weatherTool };

function faultsOf(o: SuiteOptions): MockFault[] {
  const all: MockFault[] = [
    { type: "rate_limit", retryAfter: o.retryAfter },
    { type: "server_error", status: 500 },
    { type: "server_error", status: 502 },
    { type: "server_error", status: 503 },
    { type: "overloaded" },
    { type: "context_overflow" },
    { type: "tool_unsupported" },
    { type: "auth" },
    { type: "stream_error" },
  ];
  return all.filter((f) => !o.without?.includes(f.type));
}

/** The behaviour every provider must show against the mock server. */
export function providerSuite(o: SuiteOptions): { server: () => MockLlmServer } {
  let server: MockLlmServer;
  beforeAll(async () => {
    server = await MockLlmServer.start();
  });
  afterAll(async () => server.close());
  const run = (
    reply: MockReply,
    messages: Message[] = conversation.slice(0, 2),
    tools: Tool[] = [weatherTool],
  ) => {
    server.enqueue(reply);
    return collect(o.make(server).chatStream(messages, tools, {}));
  };
  const fails = async (reply: MockReply) => {
    server.enqueue(reply);
    const err = await collect(o.make(server).chatStream(conversation.slice(0, 2), [weatherTool])).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    return err as Error & {
      retryAfterMs?: number;
      status?: number;
      provider?: string;
      responseHeaders?: Record<string, string>;
    };
  };

  describe(`${o.label ?? o.provider}: streams`, () => {
    it("plain text, in many small pieces: one event per piece as they arrive apart, joined when they arrive together", async () => {
      const apart = await run({ text: "Hello there!", chunkSize: 3, delayMs: 40 });
      const deltas = apart.events.filter((e) => e.type === "text").map((e) => (e as { delta: string }).delta);
      // Pieces a busy client reads together are joined, so only whole pieces and more than one event are certain.
      expect(deltas.join("")).toBe("Hello there!");
      expect(deltas.length).toBeGreaterThan(1);
      for (const delta of deltas) expect(delta.length % 3).toBe(0);
      const r = await run({ text: "Hello there, general Kenobi!", chunkSize: 3 });
      expect(r.text).toBe("Hello there, general Kenobi!");
      expect(r.done).toMatchObject({
        reason: "stop",
        message: { role: "assistant", content: "Hello there, general Kenobi!" },
      });
      expect(r.calls).toEqual([]);
    });

    it("names the model that served the reply, and the reply's id, where the wire says them", async () => {
      const backend = o.make(server);
      server.enqueue({ text: "Hi." });
      const { done } = await collect(backend.chatStream(conversation.slice(0, 2), [weatherTool], {}));
      expect(done.model).toBe(o.identifies.model ? backend.model : undefined);
      expect(done.id).toBe(o.identifies.id);
    });

    it("two parallel tool calls whose arguments arrive in pieces", async () => {
      const args = [{ city: "Paris", units: "metric", note: "ünïcödé ✓" }, { city: "Tokyo" }];
      const r = await run({
        text: "Checking both.",
        toolCalls: [
          { id: "call_1", name: "get_weather", arguments: args[0]! },
          { id: "call_2", name: "get_weather", arguments: args[1]! },
        ],
        chunkSize: 2,
      });
      expect(r.calls.map((c) => c.arguments)).toEqual(args);
      expect(r.calls.map((c) => c.name)).toEqual(["get_weather", "get_weather"]);
      const ids = r.calls.map((c) => c.id);
      if (o.sendsIds !== false) expect(ids).toEqual(["call_1", "call_2"]);
      expect(new Set(ids).size).toBe(2);
      expect(r.done.reason).toBe("tool_use");
      expect(r.done.message.toolCalls).toEqual(r.calls);
      expect(r.done.message.content).toBe("Checking both.");
    });

    it("reasoning, kept apart from the text", async () => {
      const r = await run({ reasoning: "17*20=340, plus 51 = 391.", text: "391", chunkSize: 5 });
      expect(r.reasoning).toBe("17*20=340, plus 51 = 391.");
      expect(r.text).toBe("391");
      expect(r.done.message.reasoning?.[0]?.text).toBe("17*20=340, plus 51 = 391.");
    });

    it("usage, including cached tokens", async () => {
      const r = await run({
        text: "ok",
        usage: { input: 20480, output: 1210, cachedInput: o.provider === "ollama" ? 0 : 19968 },
      });
      expect(r.usage).toMatchObject({
        inputTokens: 20480,
        outputTokens: 1210,
        cachedInputTokens: o.provider === "ollama" ? 0 : 19968,
      });
    });

    it("a multi-byte character split between two TCP chunks", async () => {
      const r = await run({ text: "naïve café — ✓ done", splitUtf8: true });
      expect(r.text).toBe("naïve café — ✓ done");
    });

    if (o.sse) {
      it("CRLF line endings and keep-alive comment lines", async () => {
        const r = await run({ text: "through the noise", crlf: true, keepAlive: true });
        expect(r.text).toBe("through the noise");
      });
    }

    it("closes the HTTP request promptly when the signal aborts", async () => {
      const before = server.disconnects;
      // 2,400 one-character chunks, 30 ms apart: a client that kept the request open would see no disconnect
      // for over a minute, so waitForDisconnects would outlast the test's own timeout.
      const text = "a slow reply that will never be read to the end ".repeat(50);
      server.enqueue({ text, chunkSize: 1, delayMs: 30 });
      const ac = new AbortController();
      const seen: string[] = [];
      const reading = (async () => {
        for await (const e of o.make(server).chatStream(conversation.slice(0, 2), [], {}, ac.signal)) {
          if (e.type === "text") seen.push(e.delta);
          if (seen.length === 2) ac.abort();
        }
      })();
      await expect(reading).rejects.toThrow(/abort/i);
      await server.waitForDisconnects(before + 1);
      expect(seen).toHaveLength(2);
    });
  });

  describe(`${o.label ?? o.provider}: errors`, () => {
    it("a stream cut in the middle is transient", async () => {
      const err = await fails({ text: "this will be cut short", chunkSize: 2, cutAfter: 3 });
      expect(err).toBeInstanceOf(TransientError);
    });

    for (const fault of faultsOf(o)) {
      const label = `${fault.type}${"status" in fault ? ` ${fault.status}` : ""}`;
      it(`${label} is typed`, async () => {
        const renews = fault.type === "auth" && o.renewsCredential;
        // Chat requests name a model; a renewal's request to a token service does not.
        const chatPosts = () => server.requests.filter((r) => r.method === "POST" && r.model !== "").length;
        const before = chatPosts();
        if (renews) server.enqueue({ fault });
        const err = await fails({ fault });
        // Refused, renewed, sent once more, refused again: and then no more.
        if (renews) expect(chatPosts() - before).toBe(2);
        expect(err.provider).toBe(o.provider);
        switch (fault.type) {
          case "rate_limit":
            expect(err).toBeInstanceOf(RateLimitError);
            if (typeof fault.retryAfter === "number") expect(err.retryAfterMs).toBe(fault.retryAfter * 1000);
            // The response's headers travel with the error (Gemini says when to retry in the body).
            if (o.provider !== "gemini") {
              expect(err.responseHeaders?.["retry-after"]).toBe(String(fault.retryAfter));
            }
            break;
          case "server_error":
            expect(err).toBeInstanceOf(TransientError);
            expect(err.status).toBe(fault.status);
            break;
          case "overloaded":
          case "stream_error":
            expect(err).toBeInstanceOf(TransientError);
            break;
          case "context_overflow":
            expect(err).toBeInstanceOf(ContextOverflowError);
            break;
          case "tool_unsupported":
            expect(err).toBeInstanceOf(ToolUnsupportedError);
            break;
          case "auth":
            expect(err).toBeInstanceOf(AuthError);
            break;
        }
      });
    }
  });

  replayScenarios(o, () => server);
  return { server: () => server };
}
