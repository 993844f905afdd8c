import { type ErrorSource, TransientError } from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import { RAW_LINE, type SseItem } from "../../http/sse-reader.js";
import type { WireDecoder } from "../../stream/event-stream.js";
import { parseFrame } from "../../stream/parse-frame.js";
import { ReplyBuilder } from "../../stream/reply-builder.js";
import { ToolCallAssembler } from "../../stream/tool-call-assembler.js";
import type { StopReason, Usage } from "../../types.js";

interface OutputItem {
  id?: string;
  type?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  encrypted_content?: string | null;
  summary?: Array<{ text?: string }>;
}

interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

interface WireEvent {
  type?: string;
  output_index?: number;
  item_id?: string;
  summary_index?: number;
  delta?: string;
  item?: OutputItem;
  response?: {
    id?: string;
    model?: string;
    status?: string;
    usage?: WireUsage | null;
    incomplete_details?: { reason?: string } | null;
  };
}

const INCOMPLETE: Record<string, StopReason> = {
  max_output_tokens: "length",
  content_filter: "content_filter",
};

/** Summary parts are separate paragraphs (each usually starts with its own bold title). */
const PART_BREAK = "\n\n";

function usageOf(u: WireUsage): Usage {
  const usage: Usage = {
    inputTokens: u.input_tokens ?? 0,
    outputTokens: u.output_tokens ?? 0,
    cachedInputTokens: u.input_tokens_details?.cached_tokens ?? 0,
    cacheCreationTokens: 0,
  };
  const reasoning = u.output_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/**
 * Responses API SSE: typed events until `response.completed` or `response.incomplete`. Reasoning arrives as
 * summary deltas, its encrypted payload whole on the reasoning item's `output_item.done` (kept as the
 * block's signature); a call is started by its `output_item.added`, streamed by argument deltas, and its
 * `output_item.done` supplies only what the deltas left out. `response.failed` and `error` are thrown typed.
 */
export class ResponsesDecoder implements WireDecoder<SseItem> {
  readonly builder = new ReplyBuilder();
  private readonly calls = new ToolCallAssembler();
  /** Argument characters each call (by output index) has streamed, so its final item adds only the rest. */
  private readonly streamed = new Map<number, number>();
  /** The reasoning item whose summary is streaming, and its summary part. */
  private reasoningItem: string | undefined;
  private summaryPart = 0;
  private refused = false;

  constructor(private readonly source: ErrorSource) {}

  accept(item: SseItem): void {
    // Not SSE at all: nothing this API sends.
    if (item.event === RAW_LINE) return;
    const e = parseFrame<WireEvent>(this.source, item.data);
    const type = e.type ?? item.event;
    switch (type) {
      case "response.output_text.delta":
        this.builder.text(e.delta ?? "");
        break;
      case "response.refusal.delta":
        this.refused = true;
        this.builder.text(e.delta ?? "");
        break;
      case "response.reasoning_summary_text.delta":
        this.summaryDelta(e.item_id, e.summary_index ?? 0, e.delta ?? "");
        break;
      case "response.output_item.added":
        if (e.item?.type === "function_call") this.callPart(e.output_index ?? 0, e.item);
        break;
      case "response.function_call_arguments.delta":
        this.callPart(e.output_index ?? 0, { arguments: e.delta ?? "" });
        break;
      case "response.output_item.done":
        if (e.item?.type === "function_call") this.callDone(e.output_index ?? 0, e.item);
        else if (e.item?.type === "reasoning") this.reasoningDone(e.item);
        break;
      case "response.completed":
      case "response.incomplete":
        this.finish(e, type === "response.incomplete");
        break;
      case "response.failed":
        throw classifyError(this.source, undefined, errorFacts(e.response, item.data));
      case "error":
        throw classifyError(this.source, undefined, errorFacts(e, item.data));
    }
  }

  private summaryDelta(itemId: string | undefined, part: number, delta: string): void {
    if (itemId !== this.reasoningItem) {
      this.builder.startReasoning();
      this.reasoningItem = itemId;
      this.summaryPart = part;
    } else if (part !== this.summaryPart) {
      this.builder.reasoningDelta(PART_BREAK);
      this.summaryPart = part;
    }
    this.builder.reasoningDelta(delta);
  }

  /** The final reasoning item: its summary, if none was streamed, and its encrypted payload. */
  private reasoningDone(item: OutputItem): void {
    const encrypted = item.encrypted_content ?? undefined;
    if (item.id !== this.reasoningItem) {
      const text = (item.summary ?? []).map((s) => s.text ?? "").join(PART_BREAK);
      if (text === "" && encrypted === undefined) return;
      this.builder.startReasoning();
      this.builder.reasoningDelta(text);
      this.reasoningItem = item.id;
    }
    if (encrypted !== undefined) this.builder.reasoningSignature(encrypted);
  }

  private callPart(index: number, part: OutputItem): void {
    const args = part.arguments ?? "";
    this.calls.accept({ index, id: part.call_id, name: part.name, arguments: args }, this.builder);
    this.streamed.set(index, (this.streamed.get(index) ?? 0) + args.length);
  }

  /** The whole call: only the arguments its deltas did not already bring are added. */
  private callDone(index: number, item: OutputItem): void {
    const rest = (item.arguments ?? "").slice(this.streamed.get(index) ?? 0);
    this.callPart(index, { ...item, arguments: rest });
  }

  private finish(e: WireEvent, incomplete: boolean): void {
    this.calls.finish(this.builder);
    this.builder.identify(e.response?.model, e.response?.id);
    if (e.response?.usage) this.builder.setUsage(usageOf(e.response.usage));
    if (incomplete) {
      const why = e.response?.incomplete_details?.reason;
      this.builder.done(INCOMPLETE[why ?? ""] ?? "other", why ?? "incomplete");
      return;
    }
    const reason = this.builder.callCount > 0 ? "tool_use" : this.refused ? "refusal" : "stop";
    this.builder.done(reason, e.response?.status ?? "completed");
  }

  end(): void {
    if (this.builder.isDone) return;
    throw new TransientError({ ...this.source, providerMessage: "the stream ended before the reply did" });
  }
}
