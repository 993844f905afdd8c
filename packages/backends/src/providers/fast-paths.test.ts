import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AnthropicFastPath, INPUT_JSON_DELTA, TEXT_DELTA, THINKING_DELTA } from "./anthropic/fast-path.js";
import { GeminiFastPath } from "./gemini/fast-path.js";
import { ARGS, NO_MATCH, OpenAiFastPath, TEXT } from "./openai/fast-path.js";

const head = {
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-x",
  system_fingerprint: "fp",
};
const textChunk = (content: string) =>
  JSON.stringify({
    ...head,
    choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
    usage: null,
  });
const argsChunk = (index: number, args: string) =>
  JSON.stringify({
    ...head,
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index, function: { arguments: args } }] },
        logprobs: null,
        finish_reason: null,
      },
    ],
  });

describe("the OpenAI fast path", () => {
  it("reads exactly what JSON.parse reads from text and argument fragments, whatever they contain", () => {
    // One instance throughout, so what it learned from earlier chunks is put to the test too.
    const f = new OpenAiFastPath();
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), fc.nat(20), (text, index) => {
        expect(f.match(textChunk(text))).toBe(TEXT);
        expect(f.fragment).toBe(text);
        expect(f.match(argsChunk(index, text))).toBe(ARGS);
        expect([f.index, f.fragment]).toEqual([index, text]);
      }),
      { numRuns: 2000 },
    );
  });

  it("leaves everything else to the full parser", () => {
    const f = new OpenAiFastPath();
    const others = [
      JSON.stringify({
        ...head,
        choices: [{ index: 0, delta: { content: "x" }, logprobs: null, finish_reason: "stop" }],
        usage: null,
      }),
      JSON.stringify({
        ...head,
        choices: [{ index: 0, delta: { content: "x" }, logprobs: null, finish_reason: null }],
        usage: { prompt_tokens: 1 },
      }),
      JSON.stringify({
        ...head,
        choices: [{ index: 0, delta: { content: "x", reasoning: "y" }, logprobs: null, finish_reason: null }],
        usage: null,
      }),
      JSON.stringify({
        ...head,
        choices: [
          { index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null },
        ],
        usage: null,
      }),
      JSON.stringify({
        ...head,
        error: { message: "boom" },
        choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
      }),
      JSON.stringify({ choices: [{ index: 1, delta: { content: "x" }, finish_reason: null }] }),
      JSON.stringify({
        ...head,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: "" } }] },
            logprobs: null,
            finish_reason: null,
          },
        ],
      }),
      "[DONE]",
    ];
    f.match(textChunk("learn the prefix"));
    for (const data of others) expect(f.match(data)).toBe(NO_MATCH);
    // A chunk from another stream (another id) is checked in full again, and recognized.
    expect(
      f.match(
        JSON.stringify({
          ...head,
          id: "other",
          choices: [{ index: 0, delta: { content: "hi" }, logprobs: null, finish_reason: null }],
          usage: null,
        }),
      ),
    ).toBe(TEXT);
  });
});

describe("the Anthropic fast path", () => {
  const event = (index: number, delta: Record<string, unknown>) =>
    JSON.stringify({ type: "content_block_delta", index, delta });
  it("reads exactly what JSON.parse reads from text, thinking and input fragments", () => {
    const f = new AnthropicFastPath();
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), fc.nat(30), (text, index) => {
        expect(f.match(event(index, { type: "text_delta", text }))).toBe(TEXT_DELTA);
        expect([f.index, f.fragment]).toEqual([index, text]);
        expect(f.match(event(index, { type: "thinking_delta", thinking: text }))).toBe(THINKING_DELTA);
        expect([f.index, f.fragment]).toEqual([index, text]);
        expect(f.match(event(index, { type: "input_json_delta", partial_json: text }))).toBe(
          INPUT_JSON_DELTA,
        );
        expect([f.index, f.fragment]).toEqual([index, text]);
        expect(f.match(event(index + 1, { type: "input_json_delta", partial_json: text }))).toBe(
          INPUT_JSON_DELTA,
        );
        expect([f.index, f.fragment]).toEqual([index + 1, text]);
      }),
      { numRuns: 2000 },
    );
  });

  it("leaves everything else to the full parser, even right after a match", () => {
    const f = new AnthropicFastPath();
    for (const data of [
      `${event(0, { type: "text_delta", text: "x" }).slice(0, -2)},"extra":"}}`,
      event(0, { type: "signature_delta", signature: "s" }),
      event(0, { type: "text_delta", text: "x", extra: 1 }),
      JSON.stringify({ type: "content_block_delta", delta: { type: "text_delta", text: "x" }, index: 0 }),
      JSON.stringify({ type: "message_delta", delta: { stop_reason: "end_turn" } }),
    ]) {
      expect(f.match(event(0, { type: "text_delta", text: "learned" }))).toBe(TEXT_DELTA);
      expect(f.match(data)).toBe(NO_MATCH);
    }
  });
});

describe("the Gemini fast path", () => {
  const usage = (n: number) => ({
    promptTokenCount: 20,
    candidatesTokenCount: n,
    totalTokenCount: 20 + n,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: 20 }],
  });
  const chunk = (text: string, n: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      candidates: [{ content: { parts: [{ text }], role: "model" }, index: 0 }],
      usageMetadata: usage(n),
      modelVersion: "gemini-2.5-flash",
      responseId: "tS77aIl",
      ...extra,
    });
  // Gemini writes a space after each colon; the shape is learned from the bytes, whatever the spacing.
  const spacedChunk = (text: string, n: number) =>
    chunk("TEXT", n)
      .replace(/":(?=[[{"\d])/g, '": ')
      .replace('"TEXT"', () => JSON.stringify(text));

  for (const [name, write] of [
    ["compact", chunk],
    ["spaced", spacedChunk],
  ] as const) {
    it(`reads exactly what JSON.parse reads once it has seen one chunk (${name})`, () => {
      const f = new GeminiFastPath();
      const first = write("Hello", 1);
      expect(f.match(first)).toBe(false);
      f.learn(first, JSON.parse(first));
      fc.assert(
        fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), fc.nat(100000), (text, n) => {
          const data = write(text, n);
          expect(f.match(data)).toBe(true);
          expect(f.fragment).toBe(text);
          expect(JSON.parse(f.usageText)).toEqual(usage(n));
        }),
        { numRuns: 2000 },
      );
    });
  }

  it("learns nothing from chunks that are not plain text, and leaves those to the full parser", () => {
    const f = new GeminiFastPath();
    const learned = chunk("x", 1);
    const others = [
      JSON.stringify({
        candidates: [{ content: { parts: [{ text: "x" }], role: "model" }, finishReason: "STOP", index: 0 }],
        usageMetadata: usage(1),
      }),
      JSON.stringify({
        candidates: [{ content: { parts: [{ text: "x", thought: true }], role: "model" }, index: 0 }],
        usageMetadata: usage(1),
      }),
      JSON.stringify({
        candidates: [{ content: { parts: [{ text: "x" }, { text: "y" }], role: "model" }, index: 0 }],
        usageMetadata: usage(1),
      }),
    ];
    for (const data of others) {
      f.learn(data, JSON.parse(data));
      expect(f.match(learned)).toBe(false);
    }
    f.learn(learned, JSON.parse(learned));
    for (const data of others) expect(f.match(data)).toBe(false);
    // Something slipped in after the usage object is not a usage object.
    const smuggled = learned.replace(
      ',"modelVersion"',
      ',"error":{"code":500,"message":"boom"},"modelVersion"',
    );
    expect(f.match(smuggled)).toBe(false);
    expect(f.match(chunk("x", 2, { promptFeedback: { blockReason: "SAFETY" } }))).toBe(false);
    expect(f.match(learned)).toBe(true);
  });
});
