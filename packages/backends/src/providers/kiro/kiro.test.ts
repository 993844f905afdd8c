import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, conversation, providerSuite, weatherTool } from "../../__fixtures__/provider-suite.js";
import { tempHomes } from "../../__fixtures__/temp-home.js";
import {
  AuthError,
  BadRequestError,
  ContextOverflowError,
  RateLimitError,
  TransientError,
} from "../../errors.js";
import { writeKiroSocialToken } from "../../testing/kiro/kiro-fixtures.js";
import type { KiroStreamQuirks } from "../../testing/kiro/kiro-render.js";
import type { MockReply } from "../../testing/mock-reply.js";
import type { MockLlmServer } from "../../testing/mock-server.js";
import type { Tool } from "../../types.js";
import { KiroBackend, type KiroOptions } from "./kiro-backend.js";
import { kiroRequestBody } from "./kiro-request.js";

const { home, env } = tempHomes("kiro-")();

function kiroOf(server: MockLlmServer, options: Partial<KiroOptions> = {}): KiroBackend {
  const base = server.baseUrl("kiro");
  return new KiroBackend({
    model: "claude-sonnet-4.5",
    baseUrl: base,
    authUrl: base,
    oidcUrl: `${base}/oidc`,
    env,
    onWarning: () => {},
    ...options,
  });
}

const suite = providerSuite({
  provider: "kiro",
  make: (s) => kiroOf(s),
  sse: false,
  retryAfter: 7,
  identifies: { model: false },
  renewsCredential: true,
  // Kiro has no "tools unsupported" error. Its refusal of the token is tested below: the suite counts every
  // POST as a chat request, and Kiro renews a login with a POST of its own.
  without: ["tool_unsupported"],
});

let tokenFile: string;
beforeAll(async () => {
  const { accessToken, refreshToken, profileArn, expiresAt } = suite.server().kiro.socialCredentials();
  tokenFile = await writeKiroSocialToken(home, { accessToken, refreshToken, profileArn, expiresAt });
});

const chatPosts = (server: MockLlmServer) =>
  server.requests.filter((r) => r.path === "/kiro/generateAssistantResponse").length;
const run = (reply: MockReply, quirks: KiroStreamQuirks = {}, tools: Tool[] = [weatherTool]) => {
  const server = suite.server();
  server.kiro.nextStreamQuirks(quirks);
  server.enqueue(reply);
  return collect(kiroOf(server).chatStream(conversation.slice(0, 2), tools));
};

describe("kiro: requests and replies through the mock", () => {
  it("sends the Kiro IDE's headers, the login's token and profile, and a body Kiro accepts", async () => {
    const server = suite.server();
    server.enqueue({ text: "one" }, { text: "two" });
    const backend = kiroOf(server);
    const r = await collect(backend.chatStream(conversation, [weatherTool], { reasoningBudget: 1000 }));
    await collect(backend.chatStream(conversation.slice(0, 2), []));
    expect(r.text).toBe("one");
    const [first, second] = server.requests
      .filter((q) => q.path === "/kiro/generateAssistantResponse")
      .slice(-2);
    expect(first!.rejected).toBeUndefined();
    expect(first!.headers).toMatchObject({
      authorization: `Bearer ${JSON.parse(readFileSync(tokenFile, "utf8")).accessToken}`,
      "content-type": "application/json",
      "x-amzn-codewhisperer-optout": "true",
      "x-amzn-kiro-agent-mode": "vibe",
      "amz-sdk-request": "attempt=1; max=3",
      "x-amz-user-agent": expect.stringMatching(/^aws-sdk-js\/\S+ KiroIDE-\S+-[0-9a-f]{64}$/),
      "user-agent": expect.stringMatching(/^aws-sdk-js\/.* api\/codewhispererstreaming#.* KiroIDE-/),
    });
    expect(first!.headers["amz-sdk-invocation-id"]).not.toBe(second!.headers["amz-sdk-invocation-id"]);
    const body = first!.body as {
      profileArn: string;
      conversationState: { history: Array<{ userInputMessage: { content: string } }> };
    };
    expect(body.profileArn).toBe(server.kiro.socialCredentials().profileArn);
    expect(body.conversationState.history[0]!.userInputMessage.content).toMatch(
      /^<thinking_mode>enabled<\/thinking_mode><max_thinking_length>1000<\/max_thinking_length>\n\nYou are a coding agent\./,
    );
  });

  it("credits from the metering, and no dollars: Kiro is a subscription", async () => {
    const r = await run({ text: "ok" });
    expect(r.usage).toMatchObject({ credits: expect.any(Number), costUsd: 0 });
    expect(r.usage!.credits).toBeGreaterThan(0);
  });

  it("reads frames however the body is cut", async () => {
    const reply = {
      text: "naïve café ✓",
      toolCalls: [{ id: "t1", name: "get_weather", arguments: { city: "Oslo" } }],
    };
    for (const writeSize of [5, 13, 4096]) {
      const r = await run({ ...reply, writeSize });
      expect([r.text, r.calls[0]?.arguments]).toEqual(["naïve café ✓", { city: "Oslo" }]);
    }
  });

  it("a reply is complete at its last frame even if the body is never closed", async () => {
    // Open far past the test's timeout: a client waiting for the body to end fails here.
    const r = await run({ text: "late close" }, { keepOpenMs: 10 * 60_000 });
    expect(r.text).toBe("late close");
    expect(r.done.reason).toBe("stop");
    expect(r.usage).toMatchObject({ credits: expect.any(Number), inputEstimated: true });
  });

  it("a call sent twice is one call; input cut off without stop is reported on the call", async () => {
    const calls = [{ id: "tooluse_1", name: "get_weather", arguments: { city: "Paris", units: "metric" } }];
    const twice = await run({ toolCalls: calls }, { duplicateToolCall: true });
    expect(twice.calls).toEqual([{ id: "tooluse_1", name: "get_weather", arguments: calls[0]!.arguments }]);
    const cut = await run({ toolCalls: calls }, { truncateToolInput: true });
    expect(cut.calls).toHaveLength(1);
    expect(cut.calls[0]).toMatchObject({
      id: "tooluse_1",
      arguments: {},
      argumentsError: expect.any(String),
    });
    expect(cut.done.reason).toBe("tool_use");
  });

  it("a broken frame, a throttling exception and an error message fail typed", async () => {
    await expect(run({ text: "abc", chunkSize: 1 }, { corruptCrcAt: 1 })).rejects.toBeInstanceOf(
      TransientError,
    );
    await expect(
      run({ fault: { type: "stream_error" } }, { streamException: "ThrottlingException" }),
    ).rejects.toBeInstanceOf(RateLimitError);
    const err = await run(
      { text: "hi" },
      { errorMessage: { code: "InternalServerError", message: "oops" } },
    ).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(TransientError);
    expect((err as Error).message).toContain("oops");
  });

  it("tool names over 64 characters go out shortened and come back whole", async () => {
    const long = `mcp__a_very_long_server_name__${"a_long_tool_name_".repeat(3)}`;
    const tool = { ...weatherTool, name: long };
    const [short] = [...kiroRequestBody("m", [], [tool], {}).toolNames.keys()];
    const r = await run({ toolCalls: [{ id: "t1", name: short!, arguments: { city: "Rome" } }] }, {}, [tool]);
    expect(suite.server().lastRequest!.rejected).toBeUndefined();
    expect(r.calls).toEqual([{ id: "t1", name: long, arguments: { city: "Rome" } }]);
  });

  it("a refused token is renewed once; refused again, the error says to sign in again", async () => {
    const server = suite.server();
    server.enqueue({ fault: { type: "auth" } }, { fault: { type: "auth" } });
    const posts = chatPosts(server);
    const before = server.kiro.counts.socialRefreshes;
    const err = await collect(kiroOf(server).chatStream(conversation.slice(0, 2), [])).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toMatch(/sign in again with `ollie login kiro` or in the Kiro IDE$/);
    expect(chatPosts(server) - posts).toBe(2);
    expect(server.kiro.counts.socialRefreshes - before).toBe(1);
  });

  it("models from ListAvailableModels, and the context window from their token limits", async () => {
    const backend = kiroOf(suite.server());
    const models = await backend.models();
    const sonnet = models.find((m) => m.id === "claude-sonnet-4.5");
    expect(sonnet?.contextLength).toBeGreaterThan(0);
    expect(await backend.contextLength()).toBe(sonnet!.contextLength);
  });
});

describe("kiro: HTTP errors", () => {
  let answer: { status: number; body: unknown; headers?: Record<string, string> };
  const seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders }> = [];
  const http = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    req.resume();
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
  beforeAll(() => new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve)));
  afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

  const failWith = async (status: number, body: unknown, headers?: Record<string, string>) => {
    answer = { status, body, ...(headers && { headers }) };
    const backend = new KiroBackend({
      model: "claude-sonnet-4.5",
      baseUrl: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
      apiKey: "ksk_test",
    });
    return (await collect(backend.chatStream(conversation.slice(0, 2), [])).catch(
      (e: unknown) => e,
    )) as Error & {
      retryAfterMs?: number;
    };
  };

  it("are typed by status and Kiro's reason", async () => {
    const quota = { message: "You have reached the limit.", reason: "MONTHLY_REQUEST_COUNT" };
    for (const [status, body] of [
      [429, quota],
      [400, quota],
      [400, { error: quota }],
      [402, { message: "You have reached the limit." }],
    ] as const) {
      const err = await failWith(status, body);
      expect(err).toBeInstanceOf(AuthError);
      expect(err.message).toMatch(/request quota is used up \(You have reached the limit\.\)/);
    }
    expect(await failWith(429, { message: "Busy", reason: "INSUFFICIENT_MODEL_CAPACITY" })).toBeInstanceOf(
      TransientError,
    );
    const limited = await failWith(429, { message: "Rate limit exceeded" }, { "retry-after": "3" });
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.retryAfterMs).toBe(3000);
    expect(
      await failWith(400, { message: "Input is too long.", reason: "CONTENT_LENGTH_EXCEEDS_THRESHOLD" }),
    ).toBeInstanceOf(ContextOverflowError);
    expect(await failWith(400, { message: "Improperly formed request.", reason: null })).toBeInstanceOf(
      BadRequestError,
    );
    const suspended = await failWith(403, { message: "Suspended", reason: "TEMPORARILY_SUSPENDED" });
    expect(suspended).toBeInstanceOf(AuthError);
    expect(suspended.message).toBe("kiro 403: Suspended");
  });

  it("an API key is sent as it is, marked as one, and never renewed", async () => {
    const before = seen.length;
    const err = await failWith(403, { message: "The bearer token included in the request is invalid." });
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toMatch(/sign in again/);
    const chats = seen.slice(before).filter((r) => r.method === "POST");
    expect(chats).toHaveLength(1);
    expect(chats[0]).toMatchObject({
      url: "/generateAssistantResponse",
      headers: { authorization: "Bearer ksk_test", tokentype: "API_KEY" },
    });
    // The context window is asked for first, to estimate usage: its failure does not fail the chat.
    expect(seen.slice(before)[0]).toMatchObject({
      method: "GET",
      url: "/ListAvailableModels?origin=AI_EDITOR",
    });
  });
});
