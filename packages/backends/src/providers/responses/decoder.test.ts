import { describe, expect, it } from "vitest";
import {
  AuthError,
  type BackendError,
  ContextOverflowError,
  RateLimitError,
  TransientError,
} from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import { bodyText, type MockReply, type Rendered } from "../../testing/mock-reply.js";
import { renderResponses } from "../../testing/wire/responses.js";
import type { StreamEvent } from "../../types.js";
import { decode, MODEL, source } from "./__fixtures__/responses-stream.js";

const joined = (events: StreamEvent[], type: "text" | "reasoning") =>
  events.flatMap((e) => (e.type === type ? [e.delta] : [])).join("");

/** A reply decoded byte by byte and whole must agree; the whole read is returned. */
async function run(reply: MockReply) {
  const rendered = renderResponses(reply, MODEL);
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
