import { ContextOverflowError, type ErrorSource, TransientError } from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import { RAW_LINE, type SseItem } from "../../http/sse-reader.js";
import type { WireDecoder } from "../../stream/event-stream.js";
import { parseFrame } from "../../stream/parse-frame.js";
import { parseArguments, ReplyBuilder } from "../../stream/reply-builder.js";
import type { StopReason } from "../../types.js";
import { AnthropicFastPath, INPUT_JSON_DELTA, TEXT_DELTA, THINKING_DELTA } from "./fast-path.js";

interface WireUsage {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number } | null;
}

interface Event {
  type: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: WireUsage };
  content_block?: {
    type: string;
    id?: string;
    name?: string;
    input?: Record<string, unknown>;
    data?: string;
  };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string | null;
  };
  usage?: WireUsage;
  error?: unknown;
}

const REASONS: Record<string, StopReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_use",
  refusal: "refusal",
};

/**
 * Anthropic messages SSE: content blocks (text, thinking, redacted thinking, tool use) by index, tool input
 * gathered per block and parsed at its stop, usage taken from message_start and overwritten by each
 * message_delta's cumulative totals, until message_stop.
 */
export class AnthropicDecoder implements WireDecoder<SseItem> {
  readonly builder = new ReplyBuilder();
  private readonly tools = new Map<
    number,
    { index: number; id: string; name: string; input: Record<string, unknown> }
  >();
  private usage: WireUsage = {};
  private stopReason: string | undefined;
  private readonly fast = new AnthropicFastPath();

  constructor(private readonly source: ErrorSource) {}

  accept(item: SseItem): void {
    if (item.event === RAW_LINE) return;
    if (this.fastDelta(item.data)) return;
    const e = parseFrame<Event>(this.source, item.data);
    switch (e.type) {
      case "message_start":
        this.usage = { ...e.message?.usage };
        this.builder.identify(e.message?.model, e.message?.id);
        break;
      case "content_block_start":
        this.blockStart(e);
        break;
      case "content_block_delta":
        this.blockDelta(e);
        break;
      case "content_block_stop": {
        const tool = this.tools.get(e.index ?? -1);
        if (tool) {
          this.tools.delete(e.index ?? -1);
          const text = this.builder.takeArguments(tool.index);
          const args = text.trim() === "" ? { arguments: tool.input } : parseArguments(text);
          this.builder.toolCall(tool.index, { id: tool.id, name: tool.name, ...args });
        }
        break;
      }
      case "message_delta":
        if (e.delta?.stop_reason) this.stopReason = e.delta.stop_reason;
        for (const [k, v] of Object.entries(e.usage ?? {}))
          if (v !== null && v !== undefined) (this.usage as Record<string, unknown>)[k] = v;
        break;
      case "message_stop":
        this.finish();
        break;
      case "error":
        throw classifyError(this.source, undefined, errorFacts(e, item.data));
    }
  }

  /** Takes a text, thinking or input fragment without JSON.parse when the fast path recognizes it. */
  private fastDelta(data: string): boolean {
    switch (this.fast.match(data)) {
      case TEXT_DELTA:
        this.builder.text(this.fast.fragment);
        return true;
      case THINKING_DELTA:
        this.builder.reasoningDelta(this.fast.fragment);
        return true;
      case INPUT_JSON_DELTA: {
        const tool = this.tools.get(this.fast.index);
        if (!tool) return false;
        this.builder.toolCallDelta(tool.index, this.fast.fragment);
        return true;
      }
      default:
        return false;
    }
  }

  private blockStart(e: Event): void {
    const block = e.content_block;
    if (!block) return;
    if (block.type === "thinking") this.builder.startReasoning();
    else if (block.type === "redacted_thinking") this.builder.redactedReasoning(block.data ?? "");
    else if (block.type === "tool_use") {
      const tool = {
        index: this.builder.callCount + this.tools.size,
        id: block.id ?? "",
        name: block.name ?? "",
        input: block.input ?? {},
      };
      this.tools.set(e.index ?? -1, tool);
      this.builder.toolCallStart(tool.index, tool.id, tool.name);
    }
  }

  private blockDelta(e: Event): void {
    const d = e.delta;
    switch (d?.type) {
      case "text_delta":
        this.builder.text(d.text ?? "");
        break;
      case "thinking_delta":
        this.builder.reasoningDelta(d.thinking ?? "");
        break;
      case "signature_delta":
        this.builder.reasoningSignature(d.signature ?? "");
        break;
      case "input_json_delta": {
        const tool = this.tools.get(e.index ?? -1);
        if (tool && d.partial_json) this.builder.toolCallDelta(tool.index, d.partial_json);
        break;
      }
    }
  }

  private finish(): void {
    const u = this.usage;
    const cacheRead = u.cache_read_input_tokens ?? 0;
    const cacheWrite = u.cache_creation_input_tokens ?? 0;
    this.builder.setUsage({
      inputTokens: (u.input_tokens ?? 0) + cacheRead + cacheWrite,
      outputTokens: u.output_tokens ?? 0,
      cachedInputTokens: cacheRead,
      cacheCreationTokens: cacheWrite,
      ...(u.output_tokens_details?.thinking_tokens !== undefined && {
        reasoningTokens: u.output_tokens_details.thinking_tokens,
      }),
    });
    if (this.stopReason === "model_context_window_exceeded") {
      throw new ContextOverflowError({
        ...this.source,
        providerMessage: "the reply filled the model's context window",
      });
    }
    this.builder.done(REASONS[this.stopReason ?? ""] ?? "other", this.stopReason);
  }

  end(): void {
    if (!this.builder.isDone) {
      throw new TransientError({
        ...this.source,
        providerMessage: "the stream ended before message_stop",
      });
    }
  }
}
