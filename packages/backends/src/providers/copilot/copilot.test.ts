import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { collect, conversation, providerSuite, weatherTool } from "../../__fixtures__/provider-suite.js";
import { AuthError, RateLimitError } from "../../errors.js";
import type { MockLlmServer } from "../../testing/mock-server.js";
import { CopilotBackend, type CopilotOptions } from "./copilot-backend.js";

const GITHUB_TOKEN = "gho_suite0000000000000000000000000000";

/** A backend signed in to the mock's GitHub with a token the mock knows. */
function copilotOf(server: MockLlmServer, options: Partial<CopilotOptions> = {}): CopilotBackend {
  server.copilot.addGithubToken(GITHUB_TOKEN);
  const base = server.baseUrl("copilot");
  return new CopilotBackend({
    name: "copilot",
    githubUrl: base,
    githubApiUrl: base,
    model: "gpt-4.1",
    apiKey: GITHUB_TOKEN,
    ...options,
  });
}

const suite = providerSuite({
  provider: "copilot",
  label: "copilot chat completions (gpt-4.1)",
  identifies: { model: true, id: "chatcmpl-mock" },
  make: (s) => copilotOf(s),
  sse: true,
  retryAfter: 7,
  renewsCredential: true,
});

providerSuite({
  provider: "copilot",
  label: "copilot anthropic messages (claude-sonnet-4.5)",
  identifies: { model: true, id: "msg_mock" },
  make: (s) => copilotOf(s, { model: "claude-sonnet-4.5" }),
  sse: true,
  retryAfter: 7,
  renewsCredential: true,
  without: ["tool_unsupported"],
});

providerSuite({
  provider: "copilot",
  label: "copilot responses (gpt-5.1-codex)",
  identifies: { model: true, id: "resp_mock" },
  make: (s) => copilotOf(s, { model: "gpt-5.1-codex" }),
  sse: true,
  retryAfter: 7,
  renewsCredential: true,
});

const chatRequests = (server: MockLlmServer) =>
  server.requests.filter(
    (r) => r.provider === "copilot" && r.method === "POST" && !r.path.endsWith("/policy"),
  );

describe("copilot: requests", () => {
  it("each model goes to the API the model list names, with the editor's headers and the Copilot token", async () => {
    const server = suite.server();
    const routes: Record<string, string> = {
      "gpt-4.1": "/copilot/api/chat/completions",
      "claude-sonnet-4.5": "/copilot/api/v1/messages",
      "gpt-5.1-codex": "/copilot/api/responses",
    };
    for (const [model, path] of Object.entries(routes)) {
      server.enqueue({ text: `from ${model}` });
      const r = await collect(
        copilotOf(server, { model }).chatStream(conversation.slice(0, 2), [weatherTool]),
      );
      expect(r.text).toBe(`from ${model}`);
      const req = server.lastRequest!;
      expect(req.path).toBe(path);
      expect(req.rejected).toBeUndefined();
      expect(req.headers["editor-version"]).toMatch(/^Ollie\//);
      expect(req.headers["copilot-integration-id"]).toBe("vscode-chat");
      expect(req.headers.authorization).toMatch(/^Bearer tid=/);
      expect(req.headers["x-initiator"]).toBe("user");
      if (model.startsWith("claude")) expect(req.headers["anthropic-version"]).toBe("2023-06-01");
    }
  });

  it("says the agent, not the user, started a turn that follows tool results", async () => {
    const server = suite.server();
    server.enqueue({ text: "Paris is cloudy, Tokyo sunny." });
    await collect(copilotOf(server).chatStream(conversation, [weatherTool]));
    expect(server.lastRequest!.headers["x-initiator"]).toBe("agent");
  });

  it("reads text and tool calls spread over two choices, and calls without an index", async () => {
    const server = suite.server();
    server.copilot.configure({ splitChoices: true, omitToolCallIndex: true });
    try {
      server.enqueue({
        text: "Checking.",
        toolCalls: [
          { id: "call_1", name: "get_weather", arguments: { city: "Paris" } },
          { id: "call_2", name: "get_weather", arguments: { city: "Tokyo" } },
        ],
        chunkSize: 3,
      });
      const r = await collect(copilotOf(server).chatStream(conversation.slice(0, 2), [weatherTool]));
      expect(r.text).toBe("Checking.");
      expect(r.calls.map((c) => [c.id, c.arguments])).toEqual([
        ["call_1", { city: "Paris" }],
        ["call_2", { city: "Tokyo" }],
      ]);
      expect(r.done.reason).toBe("tool_use");
    } finally {
      server.copilot.configure({ splitChoices: false, omitToolCallIndex: false });
    }
  });

  it("costs no dollars: usage under a subscription", async () => {
    const server = suite.server();
    server.enqueue({ text: "ok", usage: { input: 1000, output: 10 } });
    const r = await collect(copilotOf(server).chatStream(conversation.slice(0, 2), []));
    expect(r.usage).toMatchObject({ inputTokens: 1000, outputTokens: 10, costUsd: 0 });
  });
});

describe("copilot: secrets and sharing", () => {
  it("shows no token, GitHub's or Copilot's, when the backend is inspected after a chat", async () => {
    const server = suite.server();
    const backend = copilotOf(server);
    server.enqueue({ text: "ok" });
    await collect(backend.chatStream(conversation.slice(0, 2), []));
    const copilotToken = String(server.lastRequest!.headers.authorization).replace(/^Bearer /, "");
    const shown = inspect(backend, { depth: 20, showHidden: true });
    expect(shown).not.toContain(GITHUB_TOKEN);
    expect(shown).not.toContain(copilotToken);
    expect(JSON.stringify(backend)).not.toContain(copilotToken);
  });

  it("one caller giving up does not fail the exchange the others wait for", async () => {
    const server = suite.server();
    const backend = copilotOf(server);
    const quitter = new AbortController();
    server.enqueue({ text: "still here" });
    const gaveUp = collect(backend.chatStream(conversation.slice(0, 2), [], {}, quitter.signal));
    const stayed = collect(backend.chatStream(conversation.slice(0, 2), []));
    quitter.abort();
    await expect(gaveUp).rejects.toThrow(/abort/i);
    expect((await stayed).text).toBe("still here");
  });
});

describe("copilot: models", () => {
  it("lists the chat models with their limits, tools, vision and premium multiplier", async () => {
    const server = suite.server();
    const backend = copilotOf(server, { model: "claude-sonnet-4.5" });
    const models = await backend.models();
    const ids = models.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(["gpt-4.1", "claude-sonnet-4.5", "gpt-5.1-codex"]));
    expect(ids).not.toContain("text-embedding-3-small");
    const claude = models.find((m) => m.id === "claude-sonnet-4.5")!;
    expect(claude.contextLength).toBeGreaterThan(0);
    expect(claude).toMatchObject({ tools: true, vision: true, premiumMultiplier: 1 });
    expect(await backend.contextLength()).toBe(claude.contextLength);
  });

  it("enables a model whose policy is off before its first request, once, and says so", async () => {
    const server = suite.server();
    const warnings: string[] = [];
    const backend = copilotOf(server, { model: "gemini-2.5-pro", onWarning: (w) => warnings.push(w) });
    for (const text of ["one", "two"]) {
      server.enqueue({ text });
      expect((await collect(backend.chatStream(conversation.slice(0, 2), []))).text).toBe(text);
    }
    const policies = server.requests.filter((r) => r.path === "/copilot/api/models/gemini-2.5-pro/policy");
    expect(policies).toHaveLength(1);
    expect(policies[0]!.body).toEqual({ state: "enabled" });
    expect(warnings).toEqual([expect.stringMatching(/enabled model gemini-2\.5-pro/)]);
  });
});

describe("copilot: tokens", () => {
  it("exchanges the GitHub token once for many requests", async () => {
    const server = suite.server();
    const backend = copilotOf(server);
    const before = server.copilot.exchanges;
    for (let i = 0; i < 3; i++) {
      server.enqueue({ text: "ok" });
      await collect(backend.chatStream(conversation.slice(0, 2), []));
    }
    expect(server.copilot.exchanges - before).toBe(1);
  });

  it("renews the token when refresh_in has passed, before the API refuses it", async () => {
    const server = suite.server();
    let now = Date.now();
    const backend = copilotOf(server, { now: () => now });
    server.enqueue({ text: "first" });
    await collect(backend.chatStream(conversation.slice(0, 2), []));
    const before = server.copilot.exchanges;
    now += 1501 * 1000; // past refresh_in (1500 s for the default 1800 s token)
    server.enqueue({ text: "second" });
    await collect(backend.chatStream(conversation.slice(0, 2), []));
    expect(server.copilot.exchanges - before).toBe(1);
    expect(chatRequests(server).at(-1)!.rejected).toBeUndefined();
  });

  it("a token that expires during a turn is refused with 401, exchanged again, and the request sent once more", async () => {
    const server = suite.server();
    const backend = copilotOf(server);
    server.enqueue({ text: "first" });
    await collect(backend.chatStream(conversation.slice(0, 2), []));
    server.copilot.expireTokens();
    const before = { exchanges: server.copilot.exchanges, chats: chatRequests(server).length };
    server.enqueue({ text: "second" });
    expect((await collect(backend.chatStream(conversation.slice(0, 2), []))).text).toBe("second");
    expect(server.copilot.exchanges - before.exchanges).toBe(1);
    const tried = chatRequests(server).slice(before.chats);
    expect(tried.map((r) => r.rejected === undefined)).toEqual([false, true]);
  });

  it("a renewal GitHub refuses ends in a clear AuthError, without a loop", async () => {
    const server = suite.server();
    const backend = copilotOf(server);
    server.enqueue({ text: "first" });
    await collect(backend.chatStream(conversation.slice(0, 2), []));
    server.copilot.expireTokens();
    server.copilot.failExchanges({ type: "unauthorized" });
    try {
      const before = { exchanges: server.copilot.exchanges, chats: chatRequests(server).length };
      const err = await collect(backend.chatStream(conversation.slice(0, 2), [])).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthError);
      expect((err as AuthError).message).toMatch(/ollie login copilot/);
      expect(server.copilot.exchanges - before.exchanges).toBe(1);
      expect(chatRequests(server).length - before.chats).toBe(1);
    } finally {
      server.copilot.failExchanges(undefined);
    }
  });

  it("an account without Copilot gets the reason GitHub gives; a REST rate limit is a rate limit", async () => {
    const server = suite.server();
    const exchanges = server.copilot.exchanges;
    server.copilot.failExchanges({ type: "no_access", notificationId: "subscription_ended" }, 1);
    const refused = await collect(copilotOf(server).chatStream(conversation.slice(0, 2), [])).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(AuthError);
    expect((refused as AuthError).message).toMatch(/not subscribed to Copilot \(subscription_ended\)/);
    // A refused exchange is not a refused request: nothing was sent to renew.
    expect(server.copilot.exchanges - exchanges).toBe(1);
    server.copilot.failExchanges({ type: "not_found" }, 1);
    const missing = await collect(copilotOf(server).chatStream(conversation.slice(0, 2), [])).catch(
      (e: unknown) => e,
    );
    expect((missing as AuthError).message).toMatch(/no Copilot access/);
    server.copilot.failExchanges({ type: "rate_limited" }, 1);
    const limited = await collect(copilotOf(server).chatStream(conversation.slice(0, 2), [])).catch(
      (e: unknown) => e,
    );
    expect(limited).toBeInstanceOf(RateLimitError);
  });

  it("a used-up premium allowance (402) says so", async () => {
    const server = suite.server();
    server.copilot.failNextChat({ type: "quota", retryAfter: 3600 });
    const err = await collect(copilotOf(server).chatStream(conversation.slice(0, 2), [])).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).status).toBe(402);
    expect((err as AuthError).message).toMatch(/quota used up/);
  });
});
