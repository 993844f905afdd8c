import { describe, expect, it } from "vitest";
import { bodyText, type Rendered } from "../mock-reply.js";
import { SignatureRegistry } from "../signature-registry.js";
import { renderAnthropic } from "./anthropic.js";
import { renderGemini } from "./gemini.js";
import { renderOllama } from "./ollama.js";
import { renderOpenAi } from "./openai.js";

/** The JSON events of an SSE body (without OpenAI's [DONE]). */
function events(rendered: Rendered): Array<Record<string, unknown>> {
  return bodyText(rendered)
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice(6)));
}

/** The parts of every Gemini candidate, chunk by chunk. */
const geminiParts = (rendered: Rendered) =>
  events(rendered).flatMap(
    (e) =>
      (e.candidates as Array<{ content?: { parts?: Array<Record<string, unknown>> } }>)?.[0]?.content
        ?.parts ?? [],
  );

describe("anthropic rendering", () => {
  it("issues a fresh signature per reply, and a script's own, both recorded for the model", () => {
    const signatures = new SignatureRegistry();
    const signatureOf = (r: Rendered) =>
      events(r).flatMap((e) => {
        const delta = e.delta as { type?: string; signature?: string } | undefined;
        return delta?.type === "signature_delta" ? [delta.signature] : [];
      })[0];
    const a = signatureOf(renderAnthropic({ reasoning: "hm", text: "x" }, "claude-a", signatures));
    const b = signatureOf(renderAnthropic({ reasoning: "hm", text: "x" }, "claude-a", signatures));
    const given = signatureOf(
      renderAnthropic({ reasoning: "hm", reasoningSignature: "c2ln" }, "claude-a", signatures),
    );
    expect(a).not.toBe(b);
    expect(given).toBe("c2ln");
    for (const s of [a, b, given]) expect(signatures.accepts("anthropic", "claude-a", s)).toBe(true);
  });

  it("renders redacted thinking as a whole block, its data recorded", () => {
    const signatures = new SignatureRegistry();
    const r = renderAnthropic({ redactedReasoning: "EmwKAhgB", text: "Done." }, "claude-a", signatures);
    expect(events(r)).toContainEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "redacted_thinking", data: "EmwKAhgB" },
    });
    expect(signatures.accepts("anthropic", "claude-a", "EmwKAhgB")).toBe(true);
  });

  it("ends a refusal with stop_reason refusal", () => {
    const r = renderAnthropic({ text: "I can't help with that.", stopReason: "refusal" }, "claude-a");
    expect(events(r).find((e) => e.type === "message_delta")?.delta).toEqual({
      stop_reason: "refusal",
      stop_sequence: null,
    });
  });
});

describe("gemini rendering", () => {
  it("signs the first function call, else the last text part, else the last thought", () => {
    const signatures = new SignatureRegistry();
    const calls = geminiParts(
      renderGemini(
        {
          reasoning: "two cities",
          toolCalls: [
            { name: "get_weather", arguments: { city: "Paris" } },
            { name: "get_weather", arguments: { city: "Tokyo" } },
          ],
        },
        "gemini-2.5-flash",
        signatures,
      ),
    );
    const signed = calls.filter((p) => p.thoughtSignature !== undefined);
    expect(signed).toHaveLength(1);
    expect(signed[0]?.functionCall).toMatchObject({ args: { city: "Paris" } });
    expect(signatures.accepts("gemini", "gemini-2.5-flash", signed[0]?.thoughtSignature)).toBe(true);

    const text = geminiParts(
      renderGemini({ reasoning: "hm", text: "The sum is 5050.", reasoningSignature: "s1" }, "g"),
    );
    expect(text.filter((p) => p.thoughtSignature !== undefined)).toEqual([
      { text: "050.", thoughtSignature: "s1" },
    ]);

    const thought = geminiParts(renderGemini({ reasoning: "thinking", reasoningSignature: "s2" }, "g"));
    expect(thought.filter((p) => p.thoughtSignature !== undefined)).toEqual([
      { text: "king", thought: true, thoughtSignature: "s2" },
    ]);
  });

  it("signs nothing for a model that did not think, unless it is Gemini 3 calling a function", () => {
    const call = { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] };
    expect(
      geminiParts(renderGemini({ text: "Hello" }, "gemini-3-pro-preview")).some((p) => p.thoughtSignature),
    ).toBe(false);
    expect(geminiParts(renderGemini(call, "gemini-2.5-flash")).some((p) => p.thoughtSignature)).toBe(false);
    expect(geminiParts(renderGemini(call, "gemini-3-pro-preview"))[0]?.thoughtSignature).toBeDefined();
  });

  it("renders a blocked prompt as one chunk with a block reason and no candidates", () => {
    const r = events(renderGemini({ text: "never sent", stopReason: "blocked" }, "g"));
    expect(r).toEqual([
      {
        promptFeedback: { blockReason: "SAFETY" },
        usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 },
        modelVersion: "g",
        responseId: "mock",
      },
    ]);
  });

  it("renders a malformed call with no parts and the call quoted in finishMessage", () => {
    const r = events(
      renderGemini({ text: "print(default_api.get_weather(city=Paris", stopReason: "malformed_call" }, "g"),
    );
    expect(r.at(-1)?.candidates).toEqual([
      {
        finishReason: "MALFORMED_FUNCTION_CALL",
        finishMessage: "Malformed function call: print(default_api.get_weather(city=Paris",
        index: 0,
      },
    ]);
  });

  it("ends a filtered reply with SAFETY", () => {
    const r = events(renderGemini({ text: "no", stopReason: "content_filter" }, "g"));
    expect(r.at(-1)?.candidates).toMatchObject([{ finishReason: "SAFETY" }]);
  });

  it("pretty-prints a mid-stream error over several raw lines when asked", () => {
    const raw = (pretty: boolean) =>
      String(
        renderGemini({ fault: { type: "stream_error", afterText: "par", pretty } }, "g").frames.at(-1) ?? "",
      );
    const lines = raw(true)
      .split("\r\n")
      .filter((l) => l !== "");
    expect(lines.length).toBeGreaterThan(3);
    expect(JSON.parse(lines.join("\n"))).toEqual({
      error: { code: 500, message: "An internal error has occurred.", status: "INTERNAL", details: [] },
    });
    expect(raw(false).trim().split("\n")).toHaveLength(1);
  });
});

describe("openai rendering", () => {
  it("streams a refusal in delta.refusal and ends it with stop", () => {
    const r = events(
      renderOpenAi({ text: "I can't help with that.", stopReason: "refusal", chunkSize: 100 }, "gpt"),
    );
    const deltas = r.flatMap((e) =>
      (e.choices as Array<{ delta: Record<string, unknown> }>).map((c) => c.delta),
    );
    expect(deltas).toContainEqual({ refusal: "I can't help with that." });
    expect(deltas.some((d) => typeof d.content === "string" && d.content !== "")).toBe(false);
    const finish = r.flatMap((e) =>
      (e.choices as Array<{ finish_reason: string | null }>).map((c) => c.finish_reason),
    );
    expect(finish.filter((f) => f !== null)).toEqual(["stop"]);
  });

  it("ends a filtered reply with content_filter", () => {
    const r = events(renderOpenAi({ text: "no", stopReason: "content_filter" }, "gpt"));
    const finish = r.flatMap((e) =>
      (e.choices as Array<{ finish_reason: string | null }>).map((c) => c.finish_reason),
    );
    expect(finish.filter((f) => f !== null)).toEqual(["content_filter"]);
  });
});

describe("ollama rendering", () => {
  const doneLine = (r: Rendered) => JSON.parse(String(r.frames.at(-1) ?? "{}")) as Record<string, unknown>;

  it("ends a cut-off reply with done_reason length", () => {
    expect(doneLine(renderOllama({ text: "and so on", stopReason: "length" }, "qwen3:8b")).done_reason).toBe(
      "length",
    );
  });

  it("leaves prompt_eval_count out for a KV-cached prompt (usage.input null)", () => {
    expect(
      doneLine(renderOllama({ text: "ok", usage: { input: null, output: 3 } }, "qwen3:8b")),
    ).not.toHaveProperty("prompt_eval_count");
    expect(doneLine(renderOllama({ text: "ok", usage: { input: 7 } }, "qwen3:8b")).prompt_eval_count).toBe(7);
  });
});
