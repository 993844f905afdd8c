import { afterEach, describe, expect, it } from "vitest";
import type { MockFault, MockReply } from "../mock-reply.js";
import { MockLlmServer } from "../mock-server.js";
import { CopilotMock, type CopilotMockOptions } from "./copilot-mock.js";
import { type CopilotModel, copilotModel } from "./copilot-models.js";

let server: MockLlmServer | undefined;
let copilot: CopilotMock;
let api: string;
let token: string;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server with the mock mounted, and a Copilot token got as a client gets it. */
async function start(replies: MockReply[] = [], options: CopilotMockOptions = {}): Promise<void> {
  server = await MockLlmServer.start({ replies });
  copilot = new CopilotMock(options);
  server.mount("/copilot", "copilot", copilot);
  copilot.addGithubToken("gho_test");
  const response = await fetch(`${server.url}/copilot/copilot_internal/v2/token`, {
    headers: { authorization: "token gho_test", accept: "application/json" },
  });
  const envelope = (await response.json()) as { token: string; endpoints: { api: string } };
  token = envelope.token;
  api = envelope.endpoints.api;
}

const HEADERS = {
  "editor-version": "vscode/1.107.0",
  "editor-plugin-version": "copilot-chat/0.35.0",
  "copilot-integration-id": "vscode-chat",
  "openai-intent": "conversation-edits",
  "x-initiator": "user",
};

async function call(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${api}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const completion = (model: string, stream = true) => ({
  model,
  stream,
  stream_options: { include_usage: true },
  messages: [{ role: "user", content: "Hi" }],
});
const messages = (model: string) => ({
  model,
  max_tokens: 1024,
  stream: true,
  messages: [{ role: "user", content: "Hi" }],
});
const ANTHROPIC = { "anthropic-version": "2023-06-01" };

/** The JSON payloads of an SSE body (`[DONE]` left as the string). */
function events(text: string): unknown[] {
  return text
    .split("\n\n")
    .flatMap((block) => block.split("\n").filter((l) => l.startsWith("data: ")))
    .map((l) => l.slice(6))
    .map((d) => (d === "[DONE]" ? d : JSON.parse(d)));
}

type Chunk = {
  choices: Array<
    { index: number; delta: Record<string, unknown>; finish_reason?: string } & Record<string, unknown>
  >;
  usage?: Record<string, number>;
  id: string;
} & Record<string, unknown>;

const NOT_SUPPORTED = {
  error: {
    message: "The requested model is not supported.",
    code: "model_not_supported",
    param: "model",
    type: "invalid_request_error",
  },
};

describe("CopilotMock models", () => {
  it("lists the catalogue in A.7's shape, and enables a disabled model through its policy", async () => {
    await start([{ text: "enabled now", chunkSize: 100 }]);
    const list = await fetch(`${api}/models`, { headers: { authorization: `Bearer ${token}`, ...HEADERS } });
    expect(list.headers.get("x-github-request-id")).toBeTruthy();
    const { data } = (await list.json()) as { data: CopilotModel[] };
    expect(data.map((m) => [m.id, m.capabilities.type, m.supported_endpoints, m.policy?.state])).toEqual([
      ["gpt-4.1", "chat", ["/chat/completions"], undefined],
      ["claude-sonnet-4.5", "chat", ["/chat/completions", "/v1/messages"], "enabled"],
      ["gpt-5.1-codex", "chat", ["/responses"], "enabled"],
      ["gemini-2.5-pro", "chat", ["/chat/completions"], "disabled"],
      ["text-embedding-3-small", "embeddings", undefined, undefined],
    ]);
    expect(data[1]).toMatchObject({
      vendor: "Anthropic",
      billing: { is_premium: true, multiplier: 1 },
      capabilities: {
        limits: { max_context_window_tokens: 144_000, max_output_tokens: 16_000 },
        supports: { streaming: true, tool_calls: true, vision: true, thinking: true },
      },
    });

    expect(await call("/chat/completions", completion("gemini-2.5-pro"))).toMatchObject({ status: 400 });
    const enable = await call(
      "/models/gemini-2.5-pro/policy",
      { state: "enabled" },
      { "openai-intent": "chat-policy" },
    );
    expect(enable.status).toBe(200);
    expect(copilot.models.find((m) => m.id === "gemini-2.5-pro")?.policy?.state).toBe("enabled");
    expect((await call("/chat/completions", completion("gemini-2.5-pro"))).text).toContain("enabled now");
    expect((await call("/models/no-such-model/policy", { state: "enabled" })).status).toBe(404);
  });

  it("serves a catalogue of the test's own", async () => {
    await start([], { models: [copilotModel({ id: "grok-code-fast-1", endpoints: ["/chat/completions"] })] });
    const list = await fetch(`${api}/models`, { headers: { authorization: `Bearer ${token}`, ...HEADERS } });
    expect(((await list.json()) as { data: CopilotModel[] }).data.map((m) => m.id)).toEqual([
      "grok-code-fast-1",
    ]);
  });

  it.each([
    ["/chat/completions", completion("gpt-5.1-codex")],
    ["/responses", { model: "gpt-4.1", stream: true, input: "Hi" }],
    ["/v1/messages", messages("gpt-4.1")],
    ["/chat/completions", completion("claude-sonnet-4-5")],
    ["/chat/completions", completion("text-embedding-3-small")],
  ])("refuses %s for a model that does not list it: %o", async (path, body) => {
    await start([{ text: "unused" }]);
    const r = await call(path, body, ANTHROPIC);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toEqual(NOT_SUPPORTED);
    expect(server!.requests.at(-1)?.rejected).toBe("The requested model is not supported.");
  });
});

describe("CopilotMock chat completions", () => {
  const toolReply: MockReply = {
    text: "Let me read it.",
    toolCalls: [{ id: "call_9", name: "read_file", arguments: { path: "a.ts" } }],
    usage: { input: 812, output: 41 },
  };

  it("streams Copilot's chunks: prompt filter first, filter verdicts, usage on the finish chunk", async () => {
    await start([toolReply]);
    const r = await call("/chat/completions", completion("gpt-4.1"), { "copilot-vision-request": "true" });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/event-stream");
    expect(r.headers.get("x-github-request-id")).toBeTruthy();
    const all = events(r.text);
    expect(all.at(-1)).toBe("[DONE]");
    const chunks = all.slice(0, -1) as Chunk[];
    expect(chunks[0]).toMatchObject({ choices: [], id: "", created: 0 });
    expect(chunks[0]?.prompt_filter_results).toBeDefined();
    expect(chunks.slice(1).every((c) => c.choices.length > 0 && c.id === "chatcmpl-mock")).toBe(true);
    expect(chunks.some((c) => Object.hasOwn(c.choices[0]?.content_filter_results ?? {}, "hate"))).toBe(true);
    const finish = chunks.at(-1)!;
    expect(finish.choices[0]?.finish_reason).toBe("tool_calls");
    expect(finish.usage).toMatchObject({ prompt_tokens: 812, completion_tokens: 41, total_tokens: 853 });
    expect(chunks.filter((c) => c.usage)).toHaveLength(1);
    expect(r.text).not.toContain("reasoning_content");
    const request = server!.requests.at(-1)!;
    expect(request).toMatchObject({
      provider: "copilot",
      model: "gpt-4.1",
      path: "/copilot/api/chat/completions",
    });
    expect(request.headers).toMatchObject({ "x-initiator": "user", "copilot-vision-request": "true" });
  });

  it("sends reasoning as reasoning_text, closed by a reasoning_opaque signature", async () => {
    await start([{ reasoning: "Think first.", text: "Done." }]);
    const all = events((await call("/chat/completions", completion("claude-sonnet-4.5"))).text);
    const chunks = all.slice(0, -1) as Chunk[];
    const deltas = chunks.flatMap((c) => c.choices.map((x) => x.delta));
    expect(deltas.map((d) => d.reasoning_text ?? "").join("")).toBe("Think first.");
    const opaque = deltas.findIndex((d) => typeof d.reasoning_opaque === "string");
    expect(opaque).toBeGreaterThan(deltas.findLastIndex((d) => d.reasoning_text !== undefined));
    expect(opaque).toBeLessThan(deltas.findIndex((d) => d.content === "Done"));
    expect(server!.signatures.accepts("copilot", "claude-sonnet-4.5", deltas[opaque]?.reasoning_opaque)).toBe(
      true,
    );
  });

  it("moves tool calls to choice 1 and drops their index when told to", async () => {
    await start([toolReply], { splitChoices: true, omitToolCallIndex: true });
    const chunks = (events((await call("/chat/completions", completion("gpt-4.1"))).text) as Chunk[]).slice(
      1,
      -1,
    );
    const text = chunks.flatMap((c) => c.choices).filter((c) => typeof c.delta.content === "string");
    expect(text.every((c) => c.index === 0)).toBe(true);
    const calls = chunks.flatMap((c) => c.choices).filter((c) => c.delta.tool_calls);
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.every((c) => c.index === 1)).toBe(true);
    const fragments = calls.flatMap((c) => c.delta.tool_calls as Array<Record<string, unknown>>);
    expect(fragments.some((f) => "index" in f)).toBe(false);
    expect(fragments[0]).toMatchObject({ id: "call_9", function: { name: "read_file" } });
    expect(chunks.at(-1)?.choices.map((c) => [c.index, c.finish_reason])).toEqual([
      [0, "tool_calls"],
      [1, "tool_calls"],
    ]);
  });

  it("answers a request that does not stream with one chat.completion object", async () => {
    await start([{ ...toolReply, reasoning: "Hmm." }]);
    const r = await call("/chat/completions", completion("gpt-4.1", false));
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(r.text)).toMatchObject({
      object: "chat.completion",
      model: "gpt-4.1",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Let me read it.",
            reasoning_text: "Hmm.",
            tool_calls: [
              {
                id: "call_9",
                type: "function",
                function: { name: "read_file", arguments: '{"path":"a.ts"}' },
              },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 812, completion_tokens: 41 },
    });
  });

  it("answers a request broken by OpenAI's rules with OpenAI's 400, keeping the reply", async () => {
    await start([{ text: "kept" }]);
    const broken = {
      model: "gpt-4.1",
      stream: true,
      messages: [{ role: "tool", tool_call_id: "x", content: "1" }],
    };
    const r = await call("/chat/completions", broken);
    expect(r.status).toBe(400);
    expect(r.headers.get("x-github-request-id")).toBeTruthy();
    expect(server!.requests.at(-1)?.rejected).toMatch(/must be a response to a preceeding message/);
    expect((await call("/chat/completions", completion("gpt-4.1"))).text).toContain("kept");
  });
});

describe("CopilotMock Responses and Messages endpoints", () => {
  it("streams the Responses API for a /responses model", async () => {
    await start([{ text: "Fixed.", toolCalls: [{ id: "call_1", name: "read_file", arguments: {} }] }]);
    const r = await call("/responses", { model: "gpt-5.1-codex", stream: true, input: "Fix the bug" });
    expect(r.status).toBe(200);
    expect(r.text).toContain("event: response.output_text.delta");
    expect(r.text).toContain('"type":"function_call","status":"completed"');
    expect(r.text).toContain("event: response.completed");
  });

  it("streams Anthropic messages for a Claude model, and refuses x-api-key auth", async () => {
    await start([{ text: "Hello from Claude" }]);
    const refused = await fetch(`${api}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": token, "content-type": "application/json", ...HEADERS, ...ANTHROPIC },
      body: JSON.stringify(messages("claude-sonnet-4.5")),
    });
    expect(refused.status).toBe(401);
    expect((await call("/v1/messages", messages("claude-sonnet-4.5"))).status).toBe(400);
    expect(server!.requests.at(-1)?.rejected).toBe("anthropic-version: header is required");
    const r = await call("/v1/messages", messages("claude-sonnet-4.5"), ANTHROPIC);
    expect(r.status).toBe(200);
    expect(r.text).toContain("event: message_start");
    expect(r.text).toContain('"text":"Hell"');
    expect(r.text).toContain("event: message_stop");
  });
});

describe("CopilotMock faults", () => {
  const cases: Array<[MockFault, number, RegExp]> = [
    [{ type: "rate_limit", retryAfter: 7 }, 429, /"code":"rate_limited"/],
    [{ type: "server_error", status: 502 }, 502, /"error":\{"message"/],
    [{ type: "overloaded" }, 503, /"code":"model_overloaded"/],
    [{ type: "context_overflow" }, 400, /"code":"context_length_exceeded"/],
    [{ type: "tool_unsupported" }, 400, /gpt-4\.1 does not support tools/],
    [{ type: "auth" }, 401, /^unauthorized: token expired$/],
  ];
  it.each(cases)("answers %o on /chat/completions with %i", async (fault, status, body) => {
    await start([{ fault }]);
    const r = await call("/chat/completions", completion("gpt-4.1"));
    expect(r.status).toBe(status);
    expect(r.text).toMatch(body);
    expect(r.headers.get("x-github-request-id")).toBeTruthy();
    if (fault.type === "rate_limit") {
      expect(r.headers.get("retry-after")).toBe("7");
      expect(r.headers.get("x-ratelimit-exceeded")).toBeTruthy();
    }
  });

  it("answers the gateway's faults in Copilot's form on /v1/messages too", async () => {
    await start([{ fault: { type: "rate_limit", retryAfter: 3 } }, { fault: { type: "context_overflow" } }]);
    const limited = await call("/v1/messages", messages("claude-sonnet-4.5"), ANTHROPIC);
    expect([limited.status, limited.headers.get("retry-after")]).toEqual([429, "3"]);
    expect(JSON.parse(limited.text)).toMatchObject({ error: { code: "rate_limited" } });
    const overflow = await call("/v1/messages", messages("claude-sonnet-4.5"), ANTHROPIC);
    expect(overflow.status).toBe(400);
    expect(overflow.text).toContain("prompt is too long");
  });

  it("breaks a stream with a chunk that has no choices, only an error", async () => {
    await start([{ fault: { type: "stream_error", afterText: "par" } }]);
    const all = events((await call("/chat/completions", completion("gpt-4.1"))).text);
    expect(all.at(-1)).toEqual({ error: { message: expect.any(String) } });
    expect(all).not.toContain("[DONE]");
    expect(JSON.stringify(all)).toContain('"content":"par"');
  });

  it("answers 402 with retry-after when the premium requests are used up, without using a reply", async () => {
    await start([{ text: "after the quota", chunkSize: 100 }]);
    copilot.failNextChat({ type: "quota", retryAfter: 3600 });
    const r = await call("/chat/completions", completion("gpt-4.1"));
    expect([r.status, r.headers.get("retry-after")]).toEqual([402, "3600"]);
    expect(JSON.parse(r.text)).toMatchObject({ error: { code: "quota_exceeded" } });
    expect((await call("/chat/completions", completion("gpt-4.1"))).text).toContain("after the quota");
  });
});
