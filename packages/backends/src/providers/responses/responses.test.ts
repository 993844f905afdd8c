import { describe, expect, it } from "vitest";
import { conversation, weatherTool } from "../../__fixtures__/conversation.js";
import {
  AuthError,
  type BackendError,
  ContextOverflowError,
  RateLimitError,
  TransientError,
} from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import { readSse } from "../../http/sse-reader.js";
import { bodyText, frameBytes, type MockReply, type Rendered } from "../../testing/mock-reply.js";
import { SignatureRegistry } from "../../testing/signature-registry.js";
import { renderResponses } from "../../testing/wire/responses.js";
import type { AssistantMessage, Message, StreamEvent } from "../../types.js";
import { ResponsesDecoder } from "./decoder.js";
import { responsesRequestBody } from "./request-body.js";

const MODEL = "gpt-5.1-codex";
const source = { provider: "copilot", profile: "copilot" };

async function* chunks(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** What the decoder makes of a rendered stream read in `size`-byte network chunks, and how it failed. */
async function decode(rendered: Rendered, size: number) {
  expect(rendered.status).toBe(200);
  const bytes = Buffer.concat(rendered.frames.map(frameBytes));
  const decoder = new ResponsesDecoder(source);
  decoder.builder.stamp({ provider: "copilot", model: MODEL });
  const events: StreamEvent[] = [];
  try {
    for await (const items of readSse(chunks(bytes, size))) {
      for (const item of items) decoder.accept(item);
      events.push(...decoder.builder.drain());
    }
    decoder.end();
    events.push(...decoder.builder.drain());
    return { events, error: undefined };
  } catch (err) {
    events.push(...decoder.builder.drain());
    return { events, error: err as BackendError };
  }
}

const joined = (events: StreamEvent[], type: "text" | "reasoning") =>
  events.flatMap((e) => (e.type === type ? [e.delta] : [])).join("");

/** A reply decoded byte by byte and whole must agree; the whole read is returned. */
async function run(reply: MockReply, model = MODEL, signatures?: SignatureRegistry) {
  const rendered = renderResponses(reply, model, signatures);
  const byByte = await decode(rendered, 1);
  const whole = await decode(rendered, Number.MAX_SAFE_INTEGER);
  expect(byByte.error?.name).toBe(whole.error?.name);
  for (const type of ["text", "reasoning"] as const) {
    expect(joined(byByte.events, type)).toBe(joined(whole.events, type));
  }
  expect(byByte.events.at(-1)).toEqual(whole.events.at(-1));
  const done = whole.events.at(-1);
  return {
    ...whole,
    done: done?.type === "done" ? done : undefined,
    text: joined(whole.events, "text"),
    reasoning: joined(whole.events, "reasoning"),
  };
}

/** The typed error for a rendered non-2xx response, as the HTTP layer makes it. */
function httpError(rendered: Rendered): BackendError {
  const text = bodyText(rendered);
  return classifyError(source, rendered.status, errorFacts(JSON.parse(text), text), rendered.headers);
}

const withoutEvent = (rendered: Rendered, type: string): Rendered => ({
  ...rendered,
  frames: rendered.frames.filter((f) => !String(f).startsWith(`event: ${type}\n`)),
});

describe("the Responses decoder", () => {
  it("streams text, ending with stop", async () => {
    const r = await run({ text: "Hello there, general Kenobi!", chunkSize: 3 });
    expect(r.text).toBe("Hello there, general Kenobi!");
    expect(r.done).toMatchObject({
      reason: "stop",
      raw: "completed",
      message: { role: "assistant", content: "Hello there, general Kenobi!" },
    });
  });

  it("keeps the reasoning summary apart, its encrypted_content as the block's signature", async () => {
    const r = await run({
      reasoning: "17*20=340, plus 51 = 391.",
      reasoningSignature: "gAAAAB",
      text: "391",
    });
    expect(r.reasoning).toBe("17*20=340, plus 51 = 391.");
    expect(r.text).toBe("391");
    expect(r.done?.message.reasoning).toEqual([
      {
        text: "17*20=340, plus 51 = 391.",
        signature: "gAAAAB",
        origin: { provider: "copilot", model: MODEL },
      },
    ]);
  });

  it("keeps the encrypted_content of reasoning that had no summary", async () => {
    const r = await run({ reasoning: "", reasoningSignature: "gAAAAC", text: "ok" });
    expect(r.reasoning).toBe("");
    expect(r.done?.message.reasoning).toEqual([
      { text: "", signature: "gAAAAC", origin: { provider: "copilot", model: MODEL } },
    ]);
  });

  it("assembles two parallel calls with unicode arguments, each argument character once", async () => {
    const args = [{ city: "Paris", note: "ünïcödé ✓ 🌧" }, { city: "東京" }];
    const reply: MockReply = {
      text: "Checking both.",
      toolCalls: [
        { id: "call_1", name: "get_weather", arguments: args[0]! },
        { id: "call_2", name: "get_weather", arguments: args[1]! },
      ],
      chunkSize: 2,
    };
    const r = await run(reply);
    const starts = r.events.filter((e) => e.type === "tool_call_start");
    expect(starts).toEqual([
      { type: "tool_call_start", index: 0, id: "call_1", name: "get_weather" },
      { type: "tool_call_start", index: 1, id: "call_2", name: "get_weather" },
    ]);
    for (const i of [0, 1]) {
      const streamed = r.events.flatMap((e) =>
        e.type === "tool_call_delta" && e.index === i ? [e.argsDelta] : [],
      );
      expect(streamed.join("")).toBe(JSON.stringify(args[i]));
    }
    expect(r.done?.reason).toBe("tool_use");
    expect(r.done?.message.content).toBe("Checking both.");
    expect(r.done?.message.toolCalls).toEqual([
      { id: "call_1", name: "get_weather", arguments: args[0] },
      { id: "call_2", name: "get_weather", arguments: args[1] },
    ]);
  });

  it("takes a call's arguments from its final item when no deltas came", async () => {
    const rendered = renderResponses(
      { toolCalls: [{ id: "call_9", name: "ls", arguments: { dir: "src" } }] },
      MODEL,
    );
    const r = await decode(withoutEvent(rendered, "response.function_call_arguments.delta"), 7);
    const done = r.events.at(-1);
    expect(done?.type === "done" && done.message.toolCalls).toEqual([
      { id: "call_9", name: "ls", arguments: { dir: "src" } },
    ]);
  });

  it("reports usage with cached and reasoning tokens", async () => {
    const r = await run({
      reasoning: "hm",
      text: "ok",
      usage: { input: 20480, output: 1210, cachedInput: 19968, reasoning: 896 },
    });
    expect(r.events.filter((e) => e.type === "usage")).toEqual([
      {
        type: "usage",
        usage: {
          inputTokens: 20480,
          outputTokens: 1210,
          cachedInputTokens: 19968,
          cacheCreationTokens: 0,
          reasoningTokens: 896,
        },
      },
    ]);
  });

  it.each([
    ["length", "length", "max_output_tokens"],
    ["content_filter", "content_filter", "content_filter"],
    ["refusal", "refusal", "completed"],
    ["stop", "stop", "completed"],
  ] as const)("ends a %s reply with %s (%s)", async (stopReason, reason, raw) => {
    const r = await run({ text: "Some text", stopReason });
    expect(r.text).toBe("Some text");
    expect(r.done).toMatchObject({ reason, raw });
  });

  it("reads through CRLF line endings and keep-alive comments", async () => {
    const r = await run({ text: "through the noise", crlf: true, keepAlive: true });
    expect(r.text).toBe("through the noise");
  });

  it("throws a stream failure typed, after the partial text", async () => {
    const r = await run({ fault: { type: "stream_error", afterText: "partial answ" } });
    expect(r.text).toBe("partial answ");
    expect(r.error).toBeInstanceOf(TransientError);
    expect(r.error?.providerMessage).toMatch(/error occurred while processing/);
  });

  it("separates summary parts, ignores unknown events, and takes an unstreamed summary from its item", async () => {
    const event = (type: string, data: object) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: 0, ...data })}\n\n`;
    const delta = (item_id: string, summary_index: number, delta: string) =>
      event("response.reasoning_summary_text.delta", { item_id, output_index: 0, summary_index, delta });
    const reasoning = (id: string, text: string) =>
      event("response.output_item.done", {
        output_index: 0,
        item: {
          id,
          type: "reasoning",
          encrypted_content: `enc-${id}`,
          summary: [{ type: "summary_text", text }],
        },
      });
    const r = await decode(
      {
        status: 200,
        headers: {},
        frames: [
          delta("rs_1", 0, "**Plan**"),
          delta("rs_1", 1, "**Check**"),
          event("response.web_search_call.searching", { item_id: "ws_1", output_index: 1 }),
          reasoning("rs_1", "ignored: it was streamed"),
          reasoning("rs_2", "Only here."),
          event("response.completed", { response: { status: "completed" } }),
        ],
      },
      4,
    );
    const done = r.events.at(-1);
    expect(
      done?.type === "done" && done.message.reasoning?.map(({ text, signature }) => ({ text, signature })),
    ).toEqual([
      { text: "**Plan**\n\n**Check**", signature: "enc-rs_1" },
      { text: "Only here.", signature: "enc-rs_2" },
    ]);
  });

  it("throws an error event typed by its code", async () => {
    const stream = (data: object): Rendered => ({
      status: 200,
      headers: {},
      frames: [`event: error\ndata: ${JSON.stringify({ type: "error", sequence_number: 2, ...data })}\n\n`],
    });
    const overflow = await decode(
      stream({
        code: "context_length_exceeded",
        message: "Your input exceeds the context window",
        param: "input",
      }),
      5,
    );
    expect(overflow.error).toBeInstanceOf(ContextOverflowError);
    const limited = await decode(
      stream({ code: "rate_limit_exceeded", message: "Slow down", param: null }),
      5,
    );
    expect(limited.error).toBeInstanceOf(RateLimitError);
  });

  it("calls a stream that ends before response.completed transient", async () => {
    const rendered = renderResponses({ text: "this will be cut short", chunkSize: 2 }, MODEL);
    const r = await decode({ ...rendered, frames: rendered.frames.slice(0, -1) }, 3);
    expect(joined(r.events, "text")).toBe("this will be cut short");
    expect(r.error).toBeInstanceOf(TransientError);
    expect(r.error?.providerMessage).toBe("the stream ended before the reply did");
  });
});

describe("the Responses faults", () => {
  it("a rate limit is a RateLimitError with the wait from retry-after", () => {
    const err = httpError(renderResponses({ fault: { type: "rate_limit", retryAfter: 7 } }, MODEL));
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterMs).toBe(7000);
    expect(err.status).toBe(429);
  });

  it.each([500, 502, 503] as const)("a %i is transient", (status) => {
    const err = httpError(renderResponses({ fault: { type: "server_error", status } }, MODEL));
    expect(err).toBeInstanceOf(TransientError);
    expect(err.status).toBe(status);
  });

  it("overload is transient, overflow compacts, a bad key is an AuthError", () => {
    expect(httpError(renderResponses({ fault: { type: "overloaded" } }, MODEL))).toBeInstanceOf(
      TransientError,
    );
    expect(httpError(renderResponses({ fault: { type: "context_overflow" } }, MODEL))).toBeInstanceOf(
      ContextOverflowError,
    );
    const auth = httpError(renderResponses({ fault: { type: "auth" } }, MODEL));
    expect(auth).toBeInstanceOf(AuthError);
    expect(auth.status).toBe(401);
  });

  it("refusing tools is a 400 not worth retrying", () => {
    const err = httpError(renderResponses({ fault: { type: "tool_unsupported" } }, MODEL));
    expect(err.status).toBe(400);
    expect(err.retryable).toBe(false);
  });
});

describe("the Responses request body", () => {
  it("sends instructions, messages, calls and their outputs, flat tools and the settings", () => {
    const warnings: string[] = [];
    const body = responsesRequestBody(
      "gpt-4.1",
      conversation,
      [weatherTool],
      {
        temperature: 0.2,
        topP: 0.9,
        maxTokens: 4096,
        reasoningEffort: "medium",
        extra: { prompt_cache_key: "s-1" },
      },
      { provider: "copilot" },
      (w) => warnings.push(w),
    );
    expect(body).toEqual({
      model: "gpt-4.1",
      stream: true,
      store: false,
      instructions: "You are a coding agent.",
      input: [
        { role: "user", content: [{ type: "input_text", text: "Weather in Paris and Tokyo?" }] },
        { type: "function_call", call_id: "call_A1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call", call_id: "call_B2", name: "get_weather", arguments: '{"city":"Tokyo"}' },
        { type: "function_call_output", call_id: "call_A1", output: "18C cloudy" },
        { type: "function_call_output", call_id: "call_B2", output: "24C sunny" },
      ],
      tools: [
        {
          type: "function",
          name: "get_weather",
          description: "Current weather",
          parameters: weatherTool.parameters,
          strict: false,
        },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 4096,
      reasoning: { effort: "medium", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "s-1",
    });
    expect(warnings).toEqual([]);
  });

  it("leaves out what the API would refuse or has no field for, and says so", () => {
    const warnings: string[] = [];
    const body = responsesRequestBody(
      MODEL,
      conversation.slice(0, 2),
      [],
      { temperature: 0.2, topP: 1, stop: ["</end>"], seed: 7 },
      { provider: "copilot" },
      (w) => warnings.push(w),
    );
    expect(body).toEqual({
      model: MODEL,
      stream: true,
      store: false,
      instructions: "You are a coding agent.",
      input: [{ role: "user", content: [{ type: "input_text", text: "Weather in Paris and Tokyo?" }] }],
      top_p: 1,
    });
    expect(warnings).toEqual([
      `temperature 0.2 is not sent: ${MODEL} accepts only the default`,
      "stop sequences are not sent: the Responses API has none",
      "seed is not sent: the Responses API has none",
    ]);
  });

  it("replays streamed reasoning as its encrypted item, only to the provider and model that made it", async () => {
    const signatures = new SignatureRegistry();
    const r = await run(
      {
        reasoning: "Two cities.",
        text: "Looking.",
        toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Paris" } }],
      },
      MODEL,
      signatures,
    );
    const reply = r.done?.message as AssistantMessage;
    const encrypted = reply.reasoning?.[0]?.signature;
    expect(signatures.accepts("copilot", MODEL, encrypted)).toBe(true);
    const history: Message[] = [
      ...conversation.slice(0, 2),
      reply,
      { role: "tool", toolCallId: "call_1", name: "get_weather", content: "18C" },
    ];
    const inputOf = (model: string, provider = "copilot") =>
      responsesRequestBody(model, history, [], {}, { provider }).input as unknown[];
    expect(inputOf(MODEL).slice(1)).toEqual([
      {
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Two cities." }],
        encrypted_content: encrypted,
      },
      { role: "assistant", content: [{ type: "output_text", text: "Looking." }] },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output", call_id: "call_1", output: "18C" },
    ]);
    for (const other of [inputOf("gpt-5-mini"), inputOf(MODEL, "openai")]) {
      expect(other.some((i) => (i as { type?: string }).type === "reasoning")).toBe(false);
    }
  });
});
