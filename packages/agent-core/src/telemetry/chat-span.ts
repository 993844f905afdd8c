// The `chat {model}` span of a model request (its attempts and retries), and the GenAI client metrics:
// duration, tokens and, for the attempt that answered, the time to its first chunk.

import type { AssistantMessage, Backend, BackendError, Message, StopReason, Usage } from "@ollie/backends";
import { ATTR, captureMessageContent, OPERATION, providerName, recordFailure } from "@ollie/telemetry";
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import {
  agentInstruments,
  agentTracer,
  failureType,
  metricsLive,
  tracingLive,
  UNTRACED,
} from "./agent-telemetry.js";
import { inputMessages, outputMessages, systemInstructions } from "./genai-messages.js";
import { INTERRUPTED, LOOP_ATTR, LOOP_EVENT } from "./loop-names.js";

/** What the span says of a request (a ModelRequest fits). */
export interface TracedRequest {
  backend: Backend;
  messages: readonly Message[];
  params: { maxTokens?: number };
  /** What the request is for: a turn's next step, or a compaction's summary. */
  purpose?: "turn" | "compaction";
  /** The session the request belongs to. */
  conversationId?: string;
}

/** A request's answer, as the span reads it. */
export interface ChatAnswer {
  message: AssistantMessage;
  usage: Usage | undefined;
  reason: StopReason;
  raw?: string;
}

const SECONDS = 1 / 1000;

const NO_ATTRIBUTES: Attributes = Object.freeze({}) as Attributes;

/** A model request under way: its span, the clock of its current attempt, and its metrics when it ends. */
export class ChatTelemetry {
  readonly span: Span;
  /** The context with the span current, for the attempts; none when nothing traces them. */
  readonly context: Context | undefined;
  /** Whether the request is timed and watched at all: for a span or a measurement. */
  readonly timed: boolean;
  private readonly started: number;
  /** Whether a meter provider is registered, and the attributes its measurements carry. */
  private readonly measuring: boolean;
  private readonly metric: Attributes;
  /** When the attempt under way started, and when its first stream event came (0: none yet). */
  attemptStart = 0;
  /** 0 until the attempt's first event; -1 when the request is not timed, so that no event asks the clock. */
  firstEvent = 0;
  private servedBy: string | undefined;
  private replyId: string | undefined;
  /** Whether the span carries the messages (asked once: the setting is read from the environment). */
  private readonly capture: boolean;

  constructor(r: TracedRequest) {
    const backend = r.backend;
    const model = backend.model;
    const tracing = tracingLive();
    this.measuring = metricsLive();
    this.timed = tracing || this.measuring;
    this.started = this.timed ? performance.now() : 0;
    this.metric = this.measuring ? requestAttributes(backend, {}) : NO_ATTRIBUTES;
    if (tracing) {
      const parent = context.active();
      this.span = agentTracer().startSpan(
        `${OPERATION.chat} ${model}`,
        { kind: SpanKind.CLIENT, attributes: spanAttributes(r) },
        parent,
      );
      this.context = trace.setSpan(parent, this.span);
    } else {
      this.span = UNTRACED;
      this.context = undefined;
    }
    this.capture = this.span.isRecording() && captureMessageContent();
    if (this.capture) {
      const system = systemInstructions(r.messages);
      if (system !== undefined) this.span.setAttribute(ATTR.systemInstructions, system);
      this.span.setAttribute(ATTR.inputMessages, inputMessages(r.messages));
    }
  }

  /** An attempt starts. */
  attempt(): void {
    if (!this.timed) {
      this.firstEvent = -1;
      return;
    }
    this.attemptStart = performance.now();
    this.firstEvent = 0;
  }

  /** The stream's `done` named the model that served the reply and its id. */
  served(model: string | undefined, id: string | undefined): void {
    this.servedBy = model;
    this.replyId = id;
  }

  /** Attempt `attempt` failed with `error` and will be tried again after `delayMs`. */
  retry(error: BackendError, attempt: number, delayMs: number, maxAttempts: number): void {
    if (!this.span.isRecording()) return;
    this.span.addEvent(LOOP_EVENT.retry, {
      [ATTR.retryAttempt]: attempt,
      [LOOP_ATTR.retryMaxAttempts]: maxAttempts,
      [ATTR.retryDelayMs]: delayMs,
      [ATTR.errorType]: failureType(error),
    });
  }

  /** The request was answered. */
  answered(a: ChatAnswer): void {
    const span = this.span;
    const firstChunk = this.firstEvent > 0 ? (this.firstEvent - this.attemptStart) * SECONDS : undefined;
    if (span.isRecording()) {
      span.setAttributes({
        [ATTR.responseFinishReasons]: [a.raw ?? a.reason],
        ...(this.servedBy !== undefined && { [ATTR.responseModel]: this.servedBy }),
        ...(this.replyId !== undefined && { [ATTR.responseId]: this.replyId }),
        ...(firstChunk !== undefined && { [ATTR.responseTimeToFirstChunk]: firstChunk }),
      });
      if (a.usage) span.setAttributes(usageAttributes(a.usage));
      if (this.capture) span.setAttribute(ATTR.outputMessages, outputMessages(a.message, a.reason));
    }
    if (this.measuring) {
      const metric = this.metric;
      if (this.servedBy !== undefined) metric[ATTR.responseModel] = this.servedBy;
      const instruments = agentInstruments();
      if (a.usage) {
        const tokens = (type: string) => Object.assign({ [ATTR.tokenType]: type }, metric);
        instruments.tokenUsage.record(a.usage.inputTokens, tokens("input"));
        instruments.tokenUsage.record(a.usage.outputTokens, tokens("output"));
      }
      if (firstChunk !== undefined) instruments.timeToFirstChunk.record(firstChunk, metric);
    }
    this.end();
  }

  /** The request failed (or a turnError hook took its failure over). */
  failed(error: unknown): void {
    const errorType = failureType(error);
    recordFailure(this.span, error, errorType);
    this.end(errorType);
  }

  /** The turn's signal cut the request short. */
  interrupted(): void {
    if (this.span.isRecording()) {
      this.span.setAttribute(ATTR.errorType, INTERRUPTED);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: "the request was interrupted" });
    }
    this.end(INTERRUPTED);
  }

  private end(errorType?: string): void {
    this.span.end();
    if (!this.measuring) return;
    if (errorType !== undefined) this.metric[ATTR.errorType] = errorType;
    agentInstruments().operationDuration.record((performance.now() - this.started) * SECONDS, this.metric);
  }
}

/**
 * What both the span and the measurements say of a request, written into `attributes`. (Attribute objects are
 * filled a key at a time: spreading them costs several times as much, per request.)
 */
function requestAttributes(backend: Backend, attributes: Attributes): Attributes {
  attributes[ATTR.operationName] = OPERATION.chat;
  attributes[ATTR.providerName] = providerName(backend.provider);
  attributes[ATTR.requestModel] = backend.model;
  const server = backend.server;
  if (server) {
    attributes[ATTR.serverAddress] = server.address;
    attributes[ATTR.serverPort] = server.port;
  }
  return attributes;
}

/** What the span starts with: the request's attributes, and what only the span says. */
function spanAttributes(r: TracedRequest): Attributes {
  const attributes = requestAttributes(r.backend, {});
  attributes[ATTR.requestStream] = true;
  attributes[ATTR.backend] = r.backend.name;
  if (r.purpose) attributes[ATTR.purpose] = r.purpose;
  if (r.conversationId !== undefined) attributes[ATTR.conversationId] = r.conversationId;
  if (r.params.maxTokens !== undefined) attributes[ATTR.requestMaxTokens] = r.params.maxTokens;
  return attributes;
}

function usageAttributes(u: Usage): Attributes {
  return {
    [ATTR.usageInputTokens]: u.inputTokens,
    [ATTR.usageOutputTokens]: u.outputTokens,
    [ATTR.usageCacheReadInputTokens]: u.cachedInputTokens,
    [ATTR.usageCacheCreationInputTokens]: u.cacheCreationTokens,
    ...(u.reasoningTokens !== undefined && { [ATTR.usageReasoningOutputTokens]: u.reasoningTokens }),
  };
}
