import { randomUUID } from "node:crypto";
import { type ErrorSource, TransientError } from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import { RAW_LINE, type SseItem } from "../../http/sse-reader.js";
import type { WireDecoder } from "../../stream/event-stream.js";
import { parseFrame } from "../../stream/parse-frame.js";
import { ReplyBuilder } from "../../stream/reply-builder.js";
import type { StopReason } from "../../types.js";
import { GeminiFastPath } from "./fast-path.js";
import { GENERATED_ID_PREFIX } from "./request-body.js";

interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
}

interface Response {
  error?: unknown;
  candidates?: Array<{ content?: { parts?: Part[] }; finishReason?: string }>;
  usageMetadata?: {
    promptTokenCount?: number;
    cachedContentTokenCount?: number;
    candidatesTokenCount?: number;
    thoughtsTokenCount?: number;
    toolUsePromptTokenCount?: number;
  };
  promptFeedback?: { blockReason?: string };
  responseId?: string;
  modelVersion?: string;
}

const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "LANGUAGE",
  "IMAGE_SAFETY",
]);

const MALFORMED = new Set(["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"]);

function reasonOf(finish: string, hasCalls: boolean): StopReason {
  if (finish === "STOP") return hasCalls ? "tool_use" : "stop";
  if (finish === "MAX_TOKENS") return "length";
  if (FILTERED.has(finish)) return "content_filter";
  if (MALFORMED.has(finish)) return "malformed_call";
  return "other";
}

/** The most raw (non-SSE) text gathered while waiting for a multi-line error object to end. */
const RAW_LIMIT = 64 * 1024;

/**
 * Gemini streamGenerateContent SSE: each event is a partial response; thoughts are text parts flagged
 * `thought`; function calls arrive whole, without ids before Gemini 3 (stable ids are made up for them);
 * usage is cumulative; the stream ends when the connection closes after an event with a finishReason.
 * A raw JSON error line inside the stream is thrown typed.
 */
export class GeminiDecoder implements WireDecoder<SseItem> {
  readonly builder = new ReplyBuilder();
  private finishReason: string | undefined;
  /** The prompt was blocked: the provider's block reason. */
  private blockReason: string | undefined;
  /** Raw lines of an error object Gemini pretty-printed over several lines, until they parse. */
  private rawText = "";
  private usage: Response["usageMetadata"];
  /** The usage of the last chunk, when the fast path read it: parsed only if no later chunk replaces it. */
  private usageText: string | undefined;
  private idBase: string | undefined;
  private readonly fast = new GeminiFastPath();

  constructor(private readonly source: ErrorSource) {}

  accept(item: SseItem): void {
    const raw = item.event === RAW_LINE;
    const text = item.data;
    if (!raw && this.fast.match(text)) {
      this.builder.text(this.fast.fragment);
      this.usageText = this.fast.usageText;
      return;
    }
    let r: Response;
    if (raw) {
      const whole = this.rawObject(text);
      if (whole === undefined) return;
      r = whole;
    } else r = parseFrame<Response>(this.source, text);
    if (r.error !== undefined) throw classifyError(this.source, undefined, errorFacts(r, text));
    this.idBase ??= r.responseId ?? randomUUID().slice(0, 8);
    this.builder.identify(r.modelVersion, r.responseId);
    if (r.usageMetadata) {
      this.usage = r.usageMetadata;
      this.usageText = undefined;
    }
    if (r.promptFeedback?.blockReason) {
      this.blockReason = r.promptFeedback.blockReason;
      this.finishReason ??= this.blockReason;
    }
    const candidate = r.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) this.part(part);
    if (candidate?.finishReason) this.finishReason = candidate.finishReason;
    this.fast.learn(text, r);
  }

  /**
   * A raw line, or the lines gathered so far with it, as the object they make; undefined while they do not
   * parse yet (an error object Gemini pretty-printed arrives a line at a time). Lines that never make an
   * object are let go once they exceed RAW_LIMIT.
   */
  private rawObject(line: string): Response | undefined {
    this.rawText = this.rawText === "" ? line : `${this.rawText}\n${line}`;
    try {
      const value = JSON.parse(this.rawText) as Response;
      this.rawText = "";
      return typeof value === "object" && value !== null ? value : undefined;
    } catch {
      if (this.rawText.length > RAW_LIMIT) this.rawText = "";
      return undefined;
    }
  }

  /** The usage of the last chunk that had one; text the fast path kept was checked when it was read. */
  private lastUsage(): Response["usageMetadata"] {
    return this.usageText === undefined
      ? this.usage
      : (JSON.parse(this.usageText) as Response["usageMetadata"]);
  }

  private part(p: Part): void {
    if (p.functionCall) {
      const index = this.builder.callCount;
      const id = p.functionCall.id || `${GENERATED_ID_PREFIX}${this.idBase}-${index}`;
      const name = p.functionCall.name ?? "";
      this.builder.toolCallStart(index, id, name);
      this.builder.toolCall(index, {
        id,
        name,
        arguments: p.functionCall.args ?? {},
        ...(p.thoughtSignature !== undefined && { signature: p.thoughtSignature }),
      });
      return;
    }
    if (p.thought) {
      this.builder.reasoningDelta(p.text ?? "");
      if (p.thoughtSignature) this.builder.reasoningSignature(p.thoughtSignature);
      return;
    }
    if (p.text) this.builder.text(p.text);
    // A signature on a text part is kept as a reasoning block without text, so it goes back on the text.
    if (p.thoughtSignature) {
      this.builder.startReasoning();
      this.builder.reasoningSignature(p.thoughtSignature);
    }
  }

  end(): void {
    if (this.finishReason === undefined) {
      throw new TransientError({
        ...this.source,
        providerMessage: "the stream ended without a finishReason",
      });
    }
    const u = this.lastUsage() ?? {};
    const thoughts = u.thoughtsTokenCount ?? 0;
    this.builder.setUsage({
      inputTokens: (u.promptTokenCount ?? 0) + (u.toolUsePromptTokenCount ?? 0),
      outputTokens: (u.candidatesTokenCount ?? 0) + thoughts,
      cachedInputTokens: u.cachedContentTokenCount ?? 0,
      cacheCreationTokens: 0,
      ...(u.thoughtsTokenCount !== undefined && { reasoningTokens: thoughts }),
    });
    const reason =
      this.blockReason !== undefined ? "blocked" : reasonOf(this.finishReason, this.builder.callCount > 0);
    this.builder.done(reason, this.finishReason);
  }
}
