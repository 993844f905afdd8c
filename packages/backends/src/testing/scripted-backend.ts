import { setTimeout as sleep } from "node:timers/promises";
import type { Backend } from "../backend.js";
import {
  AuthError,
  type BackendError,
  ContextOverflowError,
  type ErrorSource,
  RateLimitError,
  ToolUnsupportedError,
  TransientError,
} from "../errors.js";
import { parseArguments, ReplyBuilder } from "../stream/reply-builder.js";
import type { GenerationParams, Message, ModelInfo, StreamEvent, Tool } from "../types.js";
import { argsText, type MockFault, type MockReply, pieces } from "./mock-reply.js";

/** One request a ScriptedBackend received. */
export interface ScriptedCall {
  messages: Message[];
  tools: Tool[];
  params: GenerationParams;
  model: string;
}

export interface ScriptedBackendOptions {
  /** Replies given in order, or a function choosing one per request. */
  replies?: MockReply[] | ((call: ScriptedCall) => MockReply);
  name?: string;
  model?: string;
  contextLength?: number;
  models?: ModelInfo[];
}

const PROVIDER = "scripted";

function faultError(fault: MockFault, base: ErrorSource): BackendError {
  switch (fault.type) {
    case "rate_limit":
      return new RateLimitError({
        ...base,
        status: 429,
        providerMessage: "rate limited",
        ...(typeof fault.retryAfter === "number" && { retryAfterMs: fault.retryAfter * 1000 }),
      });
    case "server_error":
      return new TransientError({ ...base, status: fault.status, providerMessage: "server error" });
    case "overloaded":
      return new TransientError({ ...base, status: 529, providerMessage: "overloaded" });
    case "context_overflow":
      return new ContextOverflowError({ ...base, status: 400, providerMessage: "prompt is too long" });
    case "tool_unsupported":
      return new ToolUnsupportedError({
        ...base,
        status: 400,
        providerMessage: "this model does not support tools",
      });
    case "auth":
      return new AuthError({ ...base, status: 401, providerMessage: "invalid api key" });
    case "stream_error":
      return new TransientError({ ...base, providerMessage: "the stream failed" });
  }
}

/**
 * A Backend that plays scripted replies in process, with the same events a real provider's stream gives
 * (text and argument fragments, reasoning, usage, done) and the same typed errors for faults. It records
 * every request. For testing agents without HTTP; MockLlmServer tests the HTTP path.
 */
export class ScriptedBackend implements Backend {
  readonly provider = PROVIDER;
  readonly name: string;
  readonly calls: ScriptedCall[] = [];
  private currentModel: string;
  private queue: MockReply[] = [];
  private readonly chooser: ((call: ScriptedCall) => MockReply) | undefined;

  constructor(private readonly options: ScriptedBackendOptions = {}) {
    this.name = options.name ?? "scripted";
    this.currentModel = options.model ?? "scripted-model";
    if (typeof options.replies === "function") this.chooser = options.replies;
    else this.queue = [...(options.replies ?? [])];
  }

  get model(): string {
    return this.currentModel;
  }

  setModel(model: string): void {
    this.currentModel = model;
  }

  enqueue(...replies: MockReply[]): void {
    this.queue.push(...replies);
  }

  async *chatStream(
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams = {},
    signal?: AbortSignal,
  ): AsyncGenerator<StreamEvent> {
    const call: ScriptedCall = {
      messages: [...messages],
      tools: [...tools],
      params,
      model: this.currentModel,
    };
    this.calls.push(call);
    const reply = this.chooser ? this.chooser(call) : this.queue.shift();
    if (!reply) throw new Error("ScriptedBackend: no reply scripted for this request");
    signal?.throwIfAborted();
    const source: ErrorSource = { provider: PROVIDER, profile: this.name };
    if (reply.fault && reply.fault.type !== "stream_error") throw faultError(reply.fault, source);
    const events = script(reply, call.model, `scripted-${this.calls.length}`);
    let sent = 0;
    for (const e of events) {
      if (reply.delayMs) await sleep(reply.delayMs, undefined, signal ? { signal } : {});
      signal?.throwIfAborted();
      if (reply.cutAfter !== undefined && sent >= reply.cutAfter) {
        throw new TransientError({
          ...source,
          providerMessage: "the stream ended before the reply did",
        });
      }
      yield e;
      sent++;
    }
    if (reply.fault) throw faultError(reply.fault, source);
  }

  async contextLength(): Promise<number | undefined> {
    return this.options.contextLength;
  }

  async models(): Promise<ModelInfo[]> {
    return (
      this.options.models ?? [
        {
          id: this.currentModel,
          ...(this.options.contextLength && { contextLength: this.options.contextLength }),
        },
      ]
    );
  }
}

/**
 * The events a reply makes, in a provider's order, each piece as if it had arrived on its own; its `done`
 * names the model that served it and the reply's id, as a provider's does.
 */
function script(reply: MockReply, model: string, id: string): StreamEvent[] {
  const b = new ReplyBuilder();
  b.identify(model, id);
  const events: StreamEvent[] = [];
  const step = (act: () => void) => {
    act();
    events.push(...b.drain());
  };
  const size = reply.chunkSize ?? 4;
  for (const p of pieces(reply.reasoning ?? "", size)) step(() => b.reasoningDelta(p));
  if (reply.reasoningSignature) b.reasoningSignature(reply.reasoningSignature);
  if (reply.redactedReasoning !== undefined) step(() => b.redactedReasoning(reply.redactedReasoning ?? ""));
  if (reply.fault?.type === "stream_error") {
    step(() => b.text(reply.fault?.type === "stream_error" ? (reply.fault.afterText ?? "partial") : ""));
    return events;
  }
  for (const p of pieces(reply.text ?? "", size)) step(() => b.text(p));
  for (const [i, c] of (reply.toolCalls ?? []).entries()) {
    const id = c.id ?? `call_scripted_${i}`;
    const text = argsText(c.arguments);
    step(() => b.toolCallStart(i, id, c.name));
    for (const p of pieces(text, size)) step(() => b.toolCallDelta(i, p));
    step(() => b.toolCall(i, { id, name: c.name, ...parseArguments(text) }));
  }
  const u = reply.usage ?? {};
  step(() =>
    b.setUsage({
      inputTokens: u.input ?? 10,
      outputTokens: u.output ?? 5,
      cachedInputTokens: u.cachedInput ?? 0,
      cacheCreationTokens: u.cacheCreation ?? 0,
      ...(u.reasoning !== undefined && { reasoningTokens: u.reasoning }),
      ...(u.cost !== undefined && { costUsd: u.cost }),
    }),
  );
  step(() => b.done(reply.stopReason ?? (reply.toolCalls?.length ? "tool_use" : "stop")));
  return events;
}
