import { describe, expect, it } from "vitest";
import { summarize } from "../../__fixtures__/conversation.js";
import {
  AuthError,
  BadRequestError,
  ContextOverflowError,
  RateLimitError,
  TransientError,
} from "../../errors.js";
import type { EventStreamMessage } from "../../stream/aws-event-stream.js";
import type { StreamEvent } from "../../types.js";
import { KiroDecoder, type KiroDecoderOptions } from "./kiro-decoder.js";

const SOURCE = { provider: "kiro", profile: "kiro" };
const s = (value: string) => ({ type: "string" as const, value });
const bytes = (text: string) => new TextEncoder().encode(text);

const event = (type: string, payload: unknown): EventStreamMessage => ({
  headers: { ":event-type": s(type), ":content-type": s("application/json"), ":message-type": s("event") },
  payload: bytes(JSON.stringify(payload)),
});
const text = (content: string) => event("assistantResponseEvent", { content });
const tool = (toolUseId: string, fields: Record<string, unknown>) =>
  event("toolUseEvent", { name: "bash", toolUseId, ...fields });
const exception = (type: string, payload: string): EventStreamMessage => ({
  headers: {
    ":exception-type": s(type),
    ":content-type": s("application/json"),
    ":message-type": s("exception"),
  },
  payload: bytes(payload),
});

/** Decodes batches of messages (each batch one network chunk) and sums up what came out. */
function decode(batches: EventStreamMessage[][], options: Partial<KiroDecoderOptions> = {}) {
  const decoder = new KiroDecoder(SOURCE, { contextWindow: 200_000, ...options });
  const events: StreamEvent[] = [];
  for (const batch of batches) {
    for (const m of batch) decoder.accept(m);
    events.push(...decoder.builder.drain());
  }
  decoder.end();
  events.push(...decoder.builder.drain());
  return summarize(events);
}
/** Accepts the messages without `end()`: the body is still open. */
function acceptOnly(messages: EventStreamMessage[]) {
  const decoder = new KiroDecoder(SOURCE, { contextWindow: 200_000 });
  for (const m of messages) decoder.accept(m);
  return { decoder, events: decoder.builder.drain() };
}
const fails = (batches: EventStreamMessage[][]) => {
  try {
    decode(batches);
  } catch (err) {
    return err as Error & { status?: number };
  }
  throw new Error("the stream did not fail");
};

describe("kiro: decoding the event stream", () => {
  it("splits <thinking> off the text wherever the events cut the tags", () => {
    const whole = "\n<thinking>User wants the file list.</thinking>\n\nI'll run ls.";
    for (let i = 0; i <= whole.length; i++) {
      for (const together of [false, true]) {
        const parts = [text(whole.slice(0, i)), text(whole.slice(i))];
        const r = decode(together ? [parts] : parts.map((p) => [p]));
        expect([r.reasoning, r.text]).toEqual(["User wants the file list.", "I'll run ls."]);
      }
    }
    const byChar = decode([...whole].map((c) => [text(c)]));
    expect([byChar.reasoning, byChar.text]).toEqual(["User wants the file list.", "I'll run ls."]);
    expect(byChar.done.message).toMatchObject({
      content: "I'll run ls.",
      reasoning: [{ text: "User wants the file list." }],
    });
  });

  it("takes the tag only before any text; keeps an unclosed block as reasoning, and two blocks apart", () => {
    expect(decode([[text("Use the <thinking>"), text(" tag.</thinking>")]]).text).toBe(
      "Use the <thinking> tag.</thinking>",
    );
    expect(decode([[text("  indented")]]).text).toBe("  indented");
    expect(decode([[text("<thin")]]).text).toBe("<thin");
    const open = decode([[text("<thinking>cut off </thin")]]);
    expect([open.reasoning, open.text]).toEqual(["cut off </thin", ""]);
    const two = decode([[text("<thinking>one</thinking><thinking>two</thinking>Answer")]]);
    expect(two.done.message.reasoning?.map((r) => r.text)).toEqual(["one", "two"]);
    expect(two.text).toBe("Answer");
  });

  it("joins tool input fragments per toolUseId until stop, with shortened names mapped back", () => {
    const r = decode(
      [
        [text("I'll run ls.")],
        [tool("t1", { input: "" }), tool("t1", { input: '{"comm' })],
        [tool("t2", { name: "short_x", input: '{"a":1}', stop: true })],
        [tool("t1", { input: 'and":"ls"}' }), tool("t1", { stop: true })],
        [event("meteringEvent", { unit: "credit", unitPlural: "credits", usage: 0.0421 })],
        [event("contextUsageEvent", { contextUsagePercentage: 2.75 })],
      ],
      { toolNames: new Map([["short_x", "a_long_name"]]) },
    );
    expect(r.calls).toEqual([
      { id: "t2", name: "a_long_name", arguments: { a: 1 } },
      { id: "t1", name: "bash", arguments: { command: "ls" } },
    ]);
    expect(r.done.reason).toBe("tool_use");
    expect(r.done.message.toolCalls?.map((c) => c.id)).toEqual(["t2", "t1"]);
    expect(r.events.filter((e) => e.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "t1", name: "bash" },
      { type: "tool_call_start", index: 1, id: "t2", name: "a_long_name" },
    ]);
  });

  it("a call sent twice under one id is one call; a call without a name is dropped", () => {
    const call = [tool("t1", { input: '{"x":' }), tool("t1", { input: "1}" }), tool("t1", { stop: true })];
    const r = decode([call, call, [tool("t9", { name: "", input: "{}", stop: true })]]);
    expect(r.calls).toEqual([{ id: "t1", name: "bash", arguments: { x: 1 } }]);
  });

  it("a call whose stop never came is finished at the end; cut-off input is reported, not thrown", () => {
    const whole = decode([[tool("t1", { input: '{"x":1}' })]]);
    expect(whole.calls).toEqual([{ id: "t1", name: "bash", arguments: { x: 1 } }]);
    const cut = decode([[tool("t1", { input: '{"path":"/very/long' })]]);
    expect(cut.calls).toEqual([
      {
        id: "t1",
        name: "bash",
        arguments: {},
        argumentsError: expect.stringMatching(
          /^the stream ended before the call was complete, so the arguments are not valid JSON/,
        ),
        rawArguments: '{"path":"/very/long',
      },
    ]);
    expect(cut.done.reason).toBe("tool_use");
  });

  it("usage: token counts when Kiro sends them, else clearly estimated from the context share; credits", () => {
    const counted = decode([
      [text("ok")],
      [
        event("metadataEvent", {
          tokenUsage: {
            uncachedInputTokens: 100,
            outputTokens: 7,
            totalTokens: 1407,
            cacheReadInputTokens: 1000,
            cacheWriteInputTokens: 300,
          },
        }),
        event("meteringEvent", { unit: "credit", usage: 0.25 }),
        event("meteringEvent", { unit: "credit", usage: 0.5 }),
      ],
    ]);
    expect(counted.usage).toEqual({
      inputTokens: 1400,
      outputTokens: 7,
      cachedInputTokens: 1000,
      cacheCreationTokens: 300,
      credits: 0.75,
    });
    const estimated = decode([
      [text("x".repeat(400)), event("contextUsageEvent", { contextUsagePercentage: 10 })],
    ]);
    expect(estimated.usage).toEqual({
      inputTokens: 20_000 - 100,
      outputTokens: 100,
      cachedInputTokens: 0,
      cacheCreationTokens: 0,
      inputEstimated: true,
    });
    const blind = decode([[text("abcd")]], { promptEstimate: 321 });
    expect(blind.usage).toMatchObject({ inputTokens: 321, outputTokens: 1, inputEstimated: true });
  });

  it("ends the reply at contextUsageEvent, Kiro's last event, without waiting for the body to close", () => {
    const { decoder, events } = acceptOnly([
      text("<thinking>Plan.</thinking>On it."),
      tool("t1", { input: '{"x":1}' }),
      event("meteringEvent", { unit: "credit", usage: 0.5 }),
      event("contextUsageEvent", { contextUsagePercentage: 10 }),
      text(" Late."),
      tool("t2", { input: "{}", stop: true }),
      event("meteringEvent", { unit: "credit", usage: 9 }),
      exception("ThrottlingException", '{"message":"late"}'),
    ]);
    expect(decoder.builder.isDone).toBe(true);
    expect(events.slice(-3)).toEqual([
      { type: "tool_call", index: 0, call: { id: "t1", name: "bash", arguments: { x: 1 } } },
      { type: "usage", usage: expect.objectContaining({ credits: 0.5, inputEstimated: true }) },
      expect.objectContaining({ type: "done", reason: "tool_use" }),
    ]);
    expect(events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("")).toBe("On it.");
    decoder.end();
    expect(decoder.builder.drain()).toEqual([]);

    const plain = acceptOnly([text("Hi"), event("contextUsageEvent", { contextUsagePercentage: 1 })]);
    expect(plain.events.at(-1)).toMatchObject({ type: "done", reason: "stop", message: { content: "Hi" } });
    const full = acceptOnly([text("Hi"), event("contextUsageEvent", { contextUsagePercentage: 100 })]);
    expect(full.events.at(-1)).toMatchObject({
      type: "done",
      reason: "length",
      raw: "contextUsagePercentage",
    });
    const cut = acceptOnly([
      text("Hi"),
      exception("ContentLengthExceededException", "{}"),
      event("contextUsageEvent", { contextUsagePercentage: 1 }),
    ]);
    expect(cut.events.at(-1)).toMatchObject({
      type: "done",
      reason: "length",
      raw: "ContentLengthExceededException",
    });
  });

  it("ends by length on ContentLengthExceededException or a full context window", () => {
    const exceeded = decode([
      [text("Partial"), exception("ContentLengthExceededException", '{"message":"too long"}')],
    ]);
    expect(exceeded.done).toMatchObject({ reason: "length", raw: "ContentLengthExceededException" });
    expect(exceeded.text).toBe("Partial");
    const full = decode([[text("Partial"), event("contextUsageEvent", { contextUsagePercentage: 100 })]]);
    expect(full.done.reason).toBe("length");
  });

  it("exception and error messages are typed errors", () => {
    const throttled = fails([
      [text("a"), exception("ThrottlingException", '{"message":"Too many requests"}')],
    ]);
    expect(throttled).toBeInstanceOf(RateLimitError);
    expect(throttled.status).toBeUndefined();
    expect(throttled.message).toBe("kiro: ThrottlingException: Too many requests");
    expect(fails([[exception("ValidationException", "not json")]])).toBeInstanceOf(BadRequestError);
    expect(
      fails([
        [
          exception(
            "ValidationException",
            '{"message":"Input is too long.","reason":"CONTENT_LENGTH_EXCEEDS_THRESHOLD"}',
          ),
        ],
      ]),
    ).toBeInstanceOf(ContextOverflowError);
    expect(fails([[exception("AccessDeniedException", "{}")]])).toBeInstanceOf(AuthError);
    expect(fails([[exception("InternalServerException", '{"message":"boom"}')]])).toBeInstanceOf(
      TransientError,
    );
    expect(fails([[exception("SomethingNewException", "?")]])).toBeInstanceOf(TransientError);
    const error = fails([
      [
        {
          headers: {
            ":message-type": s("error"),
            ":error-code": s("ThrottlingError"),
            ":error-message": s("slow down"),
          },
          payload: bytes(""),
        },
      ],
    ]);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.message).toBe("kiro: ThrottlingError: slow down");
  });

  it("ignores events it does not know; an empty stream or an unreadable event is transient", () => {
    const r = decode([
      [
        event("messageMetadataEvent", { conversationId: "c", utteranceId: "u" }),
        event("followupPromptEvent", { followupPrompt: { content: "more?" } }),
        event("invalidStateEvent", { reason: "INVALID_TASK_ASSIST_PLAN", message: "?" }),
        text("fine"),
      ],
    ]);
    expect(r.text).toBe("fine");
    expect(r.done.reason).toBe("stop");
    expect(fails([])).toBeInstanceOf(TransientError);
    expect(fails([[{ ...text("x"), payload: bytes("{not json") }]])).toBeInstanceOf(TransientError);
  });
});
