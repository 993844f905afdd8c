import { type ErrorSource, TransientError } from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import type { EventStreamMessage } from "../../stream/aws-event-stream.js";
import type { WireDecoder } from "../../stream/event-stream.js";
import { parseFrame } from "../../stream/parse-frame.js";
import { parseArguments, ReplyBuilder } from "../../stream/reply-builder.js";
import { estimateTextTokens } from "../../tokens/token-estimate.js";
import type { Usage } from "../../types.js";
import { isObject, nonEmpty } from "./kiro-services.js";

export interface KiroDecoderOptions {
  /** Tool names the request had to shorten: as sent → as given. */
  toolNames?: ReadonlyMap<string, string>;
  /** The model's context window, to estimate the prompt's tokens from `contextUsagePercentage`. */
  contextWindow: number;
  /** A rough count of the prompt's tokens, for a stream that reports no context usage at all. */
  promptEstimate?: number;
}

interface Call {
  index: number;
  id: string;
  name: string;
  done: boolean;
}

/** The HTTP status an exception stands for (the AWS SDK's error shapes), for classifyError. */
const EXCEPTION_STATUS: Record<string, number> = {
  Throttling: 429,
  Validation: 400,
  AccessDenied: 403,
  ServiceQuotaExceeded: 402,
  ResourceNotFound: 404,
  Conflict: 409,
  InternalServer: 500,
  ServiceUnavailable: 503,
};

const OPEN = "<thinking>";
const CLOSE = "</thinking>";
const utf8 = new TextDecoder();

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

function header(m: EventStreamMessage, name: string): string | undefined {
  const h = m.headers[name];
  return h?.type === "string" ? h.value : undefined;
}

/** How many characters at the end of `text` could be the start of `tag`. */
function partialTag(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--)
    if (text.endsWith(tag.slice(0, n))) return n;
  return 0;
}

const BEFORE_TEXT = 0;
const IN_THINKING = 1;
const AFTER_THINKING = 2;
const IN_TEXT = 3;

/**
 * Kiro's models think in `<thinking>…</thinking>` at the start of their text; the tags may be split across
 * events. A tag counts only before any visible text, so a reply that writes about the tag is left alone.
 * Whitespace between the thinking and the text is dropped.
 */
class ThinkingSplitter {
  private state = BEFORE_TEXT;
  /** The end of the text so far that may be the start of a tag. */
  private held = "";
  /** Leading whitespace, kept until it is known not to come before a thinking block. */
  private space = "";

  constructor(private readonly builder: ReplyBuilder) {}

  feed(chunk: string): void {
    let text = this.held + chunk;
    this.held = "";
    while (text !== "") {
      if (this.state === IN_TEXT) {
        this.builder.text(text);
        return;
      }
      if (this.state === IN_THINKING) {
        const close = text.indexOf(CLOSE);
        if (close < 0) {
          const keep = partialTag(text, CLOSE);
          this.builder.reasoningDelta(text.slice(0, text.length - keep));
          this.held = text.slice(text.length - keep);
          return;
        }
        this.builder.reasoningDelta(text.slice(0, close));
        text = text.slice(close + CLOSE.length);
        this.state = AFTER_THINKING;
        continue;
      }
      const visible = text.trimStart();
      if (visible === "") {
        if (this.state === BEFORE_TEXT) this.space += text;
        return;
      }
      if (visible.startsWith(OPEN)) {
        this.space = "";
        this.builder.startReasoning();
        this.state = IN_THINKING;
        text = visible.slice(OPEN.length);
        continue;
      }
      if (OPEN.startsWith(visible)) {
        this.held = text;
        return;
      }
      this.builder.text(this.state === BEFORE_TEXT ? this.space + text : visible);
      this.space = "";
      this.state = IN_TEXT;
      return;
    }
  }

  /** The stream ended: what was held back is text (or reasoning, inside an unclosed block). */
  end(): void {
    if (this.state === IN_THINKING) this.builder.reasoningDelta(this.held);
    else if (this.state === BEFORE_TEXT) this.builder.text(this.space + this.held);
    else this.builder.text(this.held.trimStart());
    this.held = "";
    this.space = "";
  }
}

/**
 * Kiro's AWS event-stream messages (B.5.3): text in `assistantResponseEvent` (thinking split off), tool
 * input in `toolUseEvent` fragments joined per `toolUseId` until `stop`, credits in `meteringEvent`, tokens
 * in `metadataEvent` when sent, the share of the context used in `contextUsageEvent`; `exception` and
 * `error` messages become typed errors — except ContentLengthExceededException, which ends the reply by
 * length.
 *
 * Kiro sends no end event, and the body may stay open after the last frame (HTTP keep-alive, HTTP/2), so
 * waiting for it to close could hang a complete reply until the idle timeout fails it. The reply therefore
 * ends at `contextUsageEvent`: B.5.3 "Ordering (observed)" has it always last ("contextUsage is always the
 * last event from the API", and pi-kiro stops reading there). The document also warns that the order is
 * only observed; should Kiro ever send more after it, that is lost rather than the reply hung. A stream
 * without one ends with the body, in `end()`.
 */
export class KiroDecoder implements WireDecoder<EventStreamMessage> {
  readonly builder = new ReplyBuilder();
  private readonly thinking = new ThinkingSplitter(this.builder);
  private readonly calls = new Map<string, Call>();
  private received = false;
  private credits: number | undefined;
  private tokenUsage: Record<string, unknown> | undefined;
  private contextPercent: number | undefined;

  constructor(
    private readonly source: ErrorSource,
    private readonly options: KiroDecoderOptions,
  ) {}

  accept(m: EventStreamMessage): void {
    this.received = true;
    if (this.builder.isDone) return;
    const kind = header(m, ":message-type") ?? "event";
    if (kind === "exception" || kind === "error") {
      const payload = utf8.decode(m.payload);
      if (kind === "exception") this.exception(header(m, ":exception-type"), payload);
      else this.exception(header(m, ":error-code"), header(m, ":error-message") ?? payload);
      return;
    }
    const type = header(m, ":event-type");
    if (
      type !== "assistantResponseEvent" &&
      type !== "toolUseEvent" &&
      type !== "meteringEvent" &&
      type !== "metadataEvent" &&
      type !== "contextUsageEvent"
    )
      return;
    const e = parseFrame<unknown>(this.source, utf8.decode(m.payload), `a ${type}`);
    if (!isObject(e)) return;
    switch (type) {
      case "assistantResponseEvent":
        if (typeof e.content === "string") this.thinking.feed(e.content);
        break;
      case "toolUseEvent":
        this.toolUse(e);
        break;
      case "meteringEvent":
        if (typeof e.usage === "number") this.credits = (this.credits ?? 0) + e.usage;
        break;
      case "metadataEvent":
        if (isObject(e.tokenUsage)) this.tokenUsage = e.tokenUsage;
        break;
      case "contextUsageEvent":
        if (typeof e.contextUsagePercentage === "number") this.contextPercent = e.contextUsagePercentage;
        this.finish();
        break;
    }
  }

  private toolUse(e: Record<string, unknown>): void {
    const id = nonEmpty(e.toolUseId);
    if (id === undefined) return;
    let call = this.calls.get(id);
    if (!call) {
      const name = nonEmpty(e.name);
      // A call without a name cannot be run, and Kiro refuses it when the history sends it back.
      if (name === undefined) return;
      call = { index: this.calls.size, id, name: this.options.toolNames?.get(name) ?? name, done: false };
      this.calls.set(id, call);
      this.builder.toolCallStart(call.index, id, call.name);
    }
    // Kiro may send a whole call again under the same id (B.5.4): it is the same call.
    if (call.done) return;
    const input = typeof e.input === "string" ? e.input : isObject(e.input) ? JSON.stringify(e.input) : "";
    this.builder.toolCallDelta(call.index, input);
    if (e.stop === true) this.completeCall(call, true);
  }

  private completeCall(call: Call, stopped: boolean): void {
    call.done = true;
    const args = parseArguments(this.builder.takeArguments(call.index));
    if (!stopped && args.argumentsError !== undefined)
      args.argumentsError = `the stream ended before the call was complete, so ${args.argumentsError}`;
    this.builder.toolCall(call.index, { id: call.id, name: call.name, ...args });
  }

  private exception(type: string | undefined, payload: string): void {
    const name = (type ?? "").replace(/(Exception|Error)$/, "");
    // An exception ends an event stream, so this one ends the reply now, not when the body closes.
    if (name === "ContentLengthExceeded") {
      this.finish(type);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      body = undefined;
    }
    const facts = errorFacts(body, payload.trim());
    const status = EXCEPTION_STATUS[name];
    throw classifyError(this.source, undefined, {
      ...facts,
      message: `${type ?? "error"}: ${facts.message}`,
      kinds: type === undefined ? facts.kinds : [...facts.kinds, type],
      ...(status !== undefined && { code: status }),
    });
  }

  /**
   * Usage as reported, else estimated (B.5.3 "Usage reporting"): Kiro usually counts no tokens. The
   * output is then estimated from the characters written, and the prompt as the share of the context
   * window the stream says is used, less that output.
   */
  private usage(): Usage {
    const t = this.tokenUsage;
    let usage: Usage;
    if (t !== undefined) {
      const read = num(t.cacheReadInputTokens);
      const write = num(t.cacheWriteInputTokens);
      usage = {
        inputTokens: num(t.uncachedInputTokens) + read + write,
        outputTokens: num(t.outputTokens),
        cachedInputTokens: read,
        cacheCreationTokens: write,
      };
    } else {
      const m = this.builder.message();
      const written = [
        m.content,
        ...(m.reasoning ?? []).map((r) => r.text),
        ...(m.toolCalls ?? []).map((c) => c.name + (c.rawArguments ?? JSON.stringify(c.arguments))),
      ].join("");
      // ESTIMATE, not a count: both numbers are guesses from sizes.
      const output = estimateTextTokens(written);
      const input =
        this.contextPercent === undefined
          ? (this.options.promptEstimate ?? 0)
          : Math.max(0, Math.round((this.options.contextWindow * this.contextPercent) / 100) - output);
      usage = {
        inputTokens: input,
        outputTokens: output,
        cachedInputTokens: 0,
        cacheCreationTokens: 0,
        inputEstimated: true,
      };
    }
    if (this.credits !== undefined) usage.credits = this.credits;
    return usage;
  }

  end(): void {
    if (this.builder.isDone) return;
    if (!this.received)
      throw new TransientError({
        ...this.source,
        providerMessage: "the stream ended before the reply began",
      });
    this.finish();
  }

  /** Ends the reply; `cutShort` is the exception that cut it by length. */
  private finish(cutShort?: string): void {
    this.thinking.end();
    // A call whose `stop` never came is complete as far as it got (its arguments may be cut off).
    for (const call of this.calls.values()) if (!call.done) this.completeCall(call, false);
    this.builder.setUsage(this.usage());
    // The context window filled up (B.5.3): the reply was cut by length, as with the exception.
    const full = this.contextPercent !== undefined && this.contextPercent >= 100;
    if (cutShort !== undefined || full) this.builder.done("length", cutShort ?? "contextUsagePercentage");
    else this.builder.done(this.builder.callCount > 0 ? "tool_use" : "stop");
  }
}
