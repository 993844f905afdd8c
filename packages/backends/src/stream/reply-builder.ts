import type {
  AssistantMessage,
  Origin,
  ReasoningBlock,
  StopReason,
  StreamEvent,
  ToolCall,
  Usage,
} from "../types.js";

interface ReasoningParts {
  parts: string[];
  signature?: string;
  redacted?: string;
}

/** Which kind of fragment is being gathered: text, reasoning, or the arguments of call `pendingIndex`. */
const TEXT = 0;
const REASONING = 1;
const ARGS = 2;

/**
 * Collects what a provider's stream says into events (drained by the caller after each network chunk) and
 * into the assembled reply that the final `done` carries. Text, reasoning and each call's arguments are
 * kept as the deltas of their events and joined once at the end. Consecutive fragments of one kind that arrive in one network chunk — text, reasoning, or one call's
 * arguments — become one event: they came together, so joining them delays nothing and spares the
 * consumer thousands of tiny events.
 */
export class ReplyBuilder {
  private events: StreamEvent[] = [];
  private pending: string[] = [];
  private pendingKind = TEXT;
  private pendingIndex = 0;
  private readonly textParts: string[] = [];
  private readonly reasoning: ReasoningParts[] = [];
  private readonly calls: ToolCall[] = [];
  private readonly argumentParts = new Map<number, string[]>();
  private finished = false;
  private origin: Origin | undefined;
  private subscription = false;
  private servedBy: string | undefined;
  private replyId: string | undefined;

  /** Marks signed parts of the reply (reasoning, signed calls) as made by `origin`. */
  stamp(origin: Origin): void {
    this.origin = origin;
  }

  /**
   * What the stream said of the reply: the model that served it and the provider's id for it. The first
   * word on each is kept (a provider repeats them in every chunk); empty values are ignored.
   */
  identify(model: unknown, id: unknown): void {
    if (this.servedBy === undefined && typeof model === "string" && model !== "") this.servedBy = model;
    if (this.replyId === undefined && typeof id === "string" && id !== "") this.replyId = id;
  }

  get isDone(): boolean {
    return this.finished;
  }

  get callCount(): number {
    return this.calls.length;
  }

  /** The events gathered since the last drain. */
  drain(): StreamEvent[] {
    this.flush();
    const out = this.events;
    this.events = [];
    return out;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    // Joined into one flat string, so the fragments die young instead of being kept until the reply ends.
    const delta = this.pending.length === 1 ? this.pending[0]! : this.pending.join("");
    this.pending.length = 0;
    const k = this.pendingKind;
    if (k === TEXT) {
      this.textParts.push(delta);
      this.events.push({ type: "text", delta });
    } else if (k === REASONING) {
      this.reasoning[this.reasoning.length - 1]!.parts.push(delta);
      this.events.push({ type: "reasoning", delta });
    } else {
      const parts = this.argumentParts.get(this.pendingIndex);
      if (parts) parts.push(delta);
      else this.argumentParts.set(this.pendingIndex, [delta]);
      this.events.push({ type: "tool_call_delta", index: this.pendingIndex, argsDelta: delta });
    }
  }

  private push(event: StreamEvent): void {
    this.flush();
    this.events.push(event);
  }

  private piece(kind: number, delta: string, index = 0): void {
    if (this.pendingKind !== kind || this.pendingIndex !== index) this.flush();
    this.pendingKind = kind;
    this.pendingIndex = index;
    this.pending.push(delta);
  }

  text(delta: string): void {
    if (delta !== "") this.piece(TEXT, delta);
  }

  /** Starts a new reasoning block (a provider's thinking block); deltas go to the latest block. */
  startReasoning(): void {
    this.flush();
    this.reasoning.push({ parts: [] });
  }

  reasoningDelta(delta: string): void {
    if (delta === "") return;
    if (this.reasoning.length === 0) this.startReasoning();
    this.piece(REASONING, delta);
  }

  reasoningSignature(signature: string): void {
    this.flush();
    if (this.reasoning.length === 0) this.startReasoning();
    this.reasoning[this.reasoning.length - 1]!.signature = signature;
  }

  redactedReasoning(data: string): void {
    this.flush();
    this.reasoning.push({ parts: [], redacted: data });
  }

  toolCallStart(index: number, id: string, name: string): void {
    this.push({ type: "tool_call_start", index, id, name });
  }

  toolCallDelta(index: number, argsDelta: string): void {
    if (argsDelta !== "") this.piece(ARGS, argsDelta, index);
  }

  /** All argument text call `index` has streamed, once; the call is then expected to complete. */
  takeArguments(index: number): string {
    this.flush();
    const parts = this.argumentParts.get(index);
    this.argumentParts.delete(index);
    return parts === undefined ? "" : parts.length === 1 ? parts[0]! : parts.join("");
  }

  toolCall(index: number, call: ToolCall): void {
    if (call.signature !== undefined && this.origin !== undefined) call.origin = this.origin;
    this.calls.push(call);
    this.push({ type: "tool_call", index, call });
  }

  /**
   * Marks the reply as paid for by a subscription (Copilot, Kiro): its usage costs no dollars, whatever
   * the model's list price.
   */
  billBySubscription(): void {
    this.subscription = true;
  }

  setUsage(usage: Usage): void {
    if (this.subscription && usage.costUsd === undefined) usage.costUsd = 0;
    this.push({ type: "usage", usage });
  }

  message(): AssistantMessage {
    this.flush();
    const m: AssistantMessage = { role: "assistant", content: this.textParts.join("") };
    if (this.calls.length > 0) m.toolCalls = [...this.calls];
    if (this.reasoning.length > 0) {
      m.reasoning = this.reasoning.map((r): ReasoningBlock => {
        const block: ReasoningBlock = { text: r.parts.join("") };
        if (r.signature !== undefined) block.signature = r.signature;
        if (r.redacted !== undefined) block.redacted = r.redacted;
        if (this.origin !== undefined) block.origin = this.origin;
        return block;
      });
    }
    return m;
  }

  done(reason: StopReason, raw?: string): void {
    if (this.finished) return;
    this.finished = true;
    this.push({
      type: "done",
      reason,
      ...(raw !== undefined && { raw }),
      message: this.message(),
      ...(this.servedBy !== undefined && { model: this.servedBy }),
      ...(this.replyId !== undefined && { id: this.replyId }),
    });
  }
}

/** Arguments text as a tool call's object: empty means `{}`; anything but a JSON object is reported. */
export function parseArguments(
  text: string,
): Pick<ToolCall, "arguments" | "argumentsError" | "rawArguments"> {
  if (text.trim() === "") return { arguments: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { arguments: value as Record<string, unknown> };
    }
    return { arguments: {}, argumentsError: "the arguments are not a JSON object", rawArguments: text };
  } catch (err) {
    return {
      arguments: {},
      argumentsError: `the arguments are not valid JSON: ${(err as Error).message}`,
      rawArguments: text,
    };
  }
}
