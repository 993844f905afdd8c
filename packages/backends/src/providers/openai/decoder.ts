import { type ErrorSource, TransientError } from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import { RAW_LINE, type SseItem } from "../../http/sse-reader.js";
import type { WireDecoder } from "../../stream/event-stream.js";
import { parseFrame } from "../../stream/parse-frame.js";
import { ReplyBuilder } from "../../stream/reply-builder.js";
import { ToolCallAssembler } from "../../stream/tool-call-assembler.js";
import type { StopReason, Usage } from "../../types.js";
import { ARGS, OpenAiFastPath, TEXT } from "./fast-path.js";

interface Delta {
  content?: string | null;
  /** Why the model declined, in place of content. */
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  reasoning_text?: string | null;
  tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
  function_call?: { name?: string; arguments?: string };
}

interface Chunk {
  id?: string;
  model?: string;
  error?: unknown;
  choices?: Array<{ index?: number; delta?: Delta; finish_reason?: string | null }> | null;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
    cost?: number;
  } | null;
}

/** Room for the calls of one choice before the next choice's begin, when choices are merged. */
const CALLS_PER_CHOICE = 1_000_000;

const REASONS: Record<string, StopReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "content_filter",
  error: "error",
};

function usageOf(u: NonNullable<Chunk["usage"]>): Usage {
  const usage: Usage = {
    inputTokens: u.prompt_tokens ?? 0,
    outputTokens: u.completion_tokens ?? 0,
    cachedInputTokens: u.prompt_tokens_details?.cached_tokens ?? 0,
    cacheCreationTokens: u.prompt_tokens_details?.cache_write_tokens ?? 0,
  };
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  if (typeof u.cost === "number") usage.costUsd = u.cost;
  return usage;
}

/**
 * Chat-completions SSE: `data:` chunks until `data: [DONE]`. Reasoning is read from whichever field the
 * server uses; tool calls from `tool_calls` deltas or the legacy `function_call`; errors inside the stream
 * (an `error` event, or a chunk or raw line with an `error` key) are thrown typed.
 */
export class OpenAiDecoder implements WireDecoder<SseItem> {
  readonly builder = new ReplyBuilder();
  private readonly calls = new ToolCallAssembler();
  private finishReason: string | undefined;
  private refused = false;
  private readonly fast = new OpenAiFastPath();

  /**
   * `mergeChoices`: read every choice as part of one reply. Copilot may stream text in one choice and the
   * tool calls in another although one was asked for; elsewhere only the first choice is the reply.
   */
  constructor(
    private readonly source: ErrorSource,
    private readonly options: { mergeChoices?: boolean } = {},
  ) {}

  accept(item: SseItem): void {
    if (item.event === RAW_LINE) {
      this.rawLine(item.data);
      return;
    }
    if (item.event === undefined) {
      const found = this.fast.match(item.data);
      if (found === TEXT) {
        this.builder.text(this.fast.fragment);
        return;
      }
      if (found === ARGS && this.calls.continueCall(this.fast.index, this.fast.fragment, this.builder))
        return;
    }
    if (item.data.trim() === "[DONE]") {
      this.finish();
      return;
    }
    const chunk = parseFrame<Chunk>(this.source, item.data);
    if (item.event === "error" || (chunk.error !== undefined && chunk.error !== null)) {
      throw classifyError(this.source, undefined, errorFacts(chunk, item.data));
    }
    // Every chunk repeats them; the fast path skips most, but not the first nor the one that finishes.
    this.builder.identify(chunk.model, chunk.id);
    for (const choice of chunk.choices ?? []) {
      const choiceIndex = choice.index ?? 0;
      if (choiceIndex !== 0 && !this.options.mergeChoices) continue;
      // Each choice numbers its calls from 0: keep another choice's calls apart from the first one's.
      const callOffset = choiceIndex * CALLS_PER_CHOICE;
      const d = choice.delta ?? {};
      const reasoning = d.reasoning_content || d.reasoning || d.reasoning_text;
      if (reasoning) this.builder.reasoningDelta(reasoning);
      if (d.content) this.builder.text(d.content);
      if (d.refusal) {
        this.refused = true;
        this.builder.text(d.refusal);
      }
      for (const tc of d.tool_calls ?? []) {
        this.calls.accept(
          {
            index: tc.index === undefined ? undefined : tc.index + callOffset,
            id: tc.id,
            name: tc.function?.name,
            arguments: tc.function?.arguments,
          },
          this.builder,
        );
      }
      if (d.function_call) {
        this.calls.accept(
          { index: 0, name: d.function_call.name, arguments: d.function_call.arguments },
          this.builder,
        );
      }
      if (choice.finish_reason) {
        this.finishReason = choice.finish_reason;
        // Merged choices finish one by one: another's calls may still be arriving, so they end with the reply.
        if (!this.options.mergeChoices) this.calls.finish(this.builder);
      }
    }
    if (chunk.usage) this.builder.setUsage(usageOf(chunk.usage));
  }

  private rawLine(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof parsed === "object" && parsed !== null && "error" in parsed) {
      throw classifyError(this.source, undefined, errorFacts(parsed, line));
    }
  }

  private finish(): void {
    this.calls.finish(this.builder);
    let reason = REASONS[this.finishReason ?? ""] ?? "other";
    if (reason === "stop" && this.builder.callCount > 0) reason = "tool_use";
    if (reason === "stop" && this.refused) reason = "refusal";
    this.builder.done(reason, this.finishReason);
  }

  end(): void {
    if (this.builder.isDone) return;
    // Some servers close without [DONE] after the last choice finished; without a finish it was cut short.
    if (this.finishReason === undefined) {
      throw new TransientError({
        ...this.source,
        providerMessage: "the stream ended before the reply did",
      });
    }
    this.finish();
  }
}
