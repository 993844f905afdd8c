import { randomUUID } from "node:crypto";
import { TransientError } from "../../errors.js";
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

function reasonOf(finish: string, hasCalls: boolean): StopReason {
  if (finish === "STOP") return hasCalls ? "tool_use" : "stop";
  if (finish === "MAX_TOKENS") return "length";
  if (FILTERED.has(finish)) return "content_filter";
  if (finish === "MALFORMED_FUNCTION_CALL") return "error";
  return "other";
}

/**
 * Gemini streamGenerateContent SSE: each event is a partial response; thoughts are text parts flagged
 * `thought`; function calls arrive whole, without ids before Gemini 3 (stable ids are made up for them);
 * usage is cumulative; the stream ends when the connection closes after an event with a finishReason.
 * A raw JSON error line inside the stream is thrown typed.
 */
export class GeminiDecoder implements WireDecoder<SseItem> {
  readonly builder = new ReplyBuilder();
  private finishReason: string | undefined;
  private usage: Response["usageMetadata"];
  /** The usage of the last chunk, when the fast path read it: parsed only if no later chunk replaces it. */
  private usageText: string | undefined;
  private idBase: string | undefined;
  private readonly fast = new GeminiFastPath();

  constructor(private readonly provider: string) {}

  accept(item: SseItem): void {
    const raw = item.event === RAW_LINE;
    const text = item.data;
    if (!raw && this.fast.match(text)) {
      this.builder.text(this.fast.fragment);
      this.usageText = this.fast.usageText;
      return;
    }
    let r: Response;
    try {
      r = parseFrame<Response>(this.provider, text);
    } catch (error) {
      if (raw) return;
      throw error;
    }
    if (r.error !== undefined) throw classifyError(this.provider, undefined, errorFacts(r, text));
    this.idBase ??= r.responseId ?? randomUUID().slice(0, 8);
    if (r.usageMetadata) {
      this.usage = r.usageMetadata;
      this.usageText = undefined;
    }
    if (r.promptFeedback?.blockReason) this.finishReason = r.promptFeedback.blockReason;
    const candidate = r.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) this.part(part);
    if (candidate?.finishReason) this.finishReason = candidate.finishReason;
    this.fast.learn(text, r);
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
    if (p.thoughtSignature) this.builder.reasoningSignature(p.thoughtSignature);
  }

  end(): void {
    if (this.finishReason === undefined) {
      throw new TransientError({
        provider: this.provider,
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
    this.builder.done(reasonOf(this.finishReason, this.builder.callCount > 0), this.finishReason);
  }
}
