import {
  type AssistantMessage,
  type Backend,
  type BackendError,
  type GenerationParams,
  type Message,
  RateLimitError,
  type StopReason,
  type Tool,
  TransientError,
  type Usage,
} from "@ollie/backends";
import { context } from "@opentelemetry/api";
import { ChatTelemetry } from "../telemetry/chat-span.js";
import { AttemptTally, type CutRequest } from "./cut-request.js";
import { RetryEcho } from "./retry-echo.js";
import { attemptsFor, type RetryPolicy, retryDelayMs, sleep } from "./retry-policy.js";
import { backendFailure } from "./unknown-backend-error.js";

/** A model request, and what the loop wants to hear while it runs. */
export interface ModelRequest {
  backend: Backend;
  messages: readonly Message[];
  tools: readonly Tool[];
  params: GenerationParams;
  policy: RetryPolicy;
  /** The turn's signal: aborting it ends the request at once. */
  signal: AbortSignal;
  onText(delta: string): void;
  /** A retry's reply differs from the partial text an earlier attempt streamed (`partial`), now void. */
  onDiscard(partial: string): void;
  onReasoning(delta: string): void;
  /** Attempt `attempt` failed and is about to be retried after `delayMs`; `maxAttempts` is that failure's limit. */
  onRetry(error: BackendError, attempt: number, delayMs: number, maxAttempts: number): void;
  /** Every failure, before any retry: resolve true when it has been dealt with elsewhere (the turnError hook). */
  onError(error: BackendError): Promise<boolean>;
  /** What the request is for, as its span says: a turn's next step, or a compaction's summary. */
  purpose?: "turn" | "compaction";
  /** The session the request belongs to, as its span says. */
  conversationId?: string;
}

export type ModelReply =
  | {
      ok: true;
      message: AssistantMessage;
      usage: Usage | undefined;
      reason: StopReason;
      /** The provider's own word for the reason. */
      raw?: string;
    }
  | {
      ok: false;
      aborted: false;
      /** What the backend threw, as a BackendError (see UnknownBackendError). */
      error: BackendError;
      /** Text the last attempt streamed before it failed: it belongs in the history. */
      partialText: string;
      /** The onError handler took the failure over. */
      handled: boolean;
    }
  | {
      ok: false;
      /** The request's signal aborted it (its reason is the signal's). */
      aborted: true;
      /** Text the attempt streamed before the abort: it belongs in the history. */
      partialText: string;
      /** The request under way when the abort came, which the provider bills; none between attempts. */
      cut?: CutRequest;
    };

/** What a failure of `backend` names: the kind of provider, and the name the backend was configured with. */
const sourceOf = (backend: Pick<Backend, "provider" | "name">) => ({
  provider: backend.provider,
  profile: backend.name,
});

/** A stream that delivered nothing for the policy's idle time. */
export class StreamIdleError extends TransientError {
  override readonly name = "StreamIdleError";
  constructor(backend: Pick<Backend, "provider" | "name">, idleMs: number) {
    super({
      ...sourceOf(backend),
      providerMessage: `the stream delivered nothing for ${idleMs / 1000} s`,
    });
  }
}

/**
 * Streams one reply, retrying what is worth retrying: rate limits after the provider's retry-after (else
 * backoff), transient failures and dropped or silent streams with backoff, up to the policy's attempts; an
 * unreachable backend once, soon.
 * Never throws: a failure comes back, as a BackendError whatever the backend threw, with the text its last
 * attempt had streamed.
 */
export function requestReply(r: ModelRequest): Promise<ModelReply> {
  const chat = new ChatTelemetry(r);
  // Untraced and unmeasured, the request runs as it would without telemetry, with no layer around it.
  return chat.timed ? tracedRequest(r, chat) : attempts(r, chat);
}

async function tracedRequest(r: ModelRequest, chat: ChatTelemetry): Promise<ModelReply> {
  let reply: ModelReply;
  try {
    reply = await (chat.context ? context.with(chat.context, () => attempts(r, chat)) : attempts(r, chat));
  } catch (error) {
    // A listener's or a hook's bug, not the backend's: the span ends all the same.
    chat.failed(error);
    throw error;
  }
  if (reply.ok) chat.answered(reply);
  else if (reply.aborted) chat.interrupted();
  else chat.failed(reply.error);
  return reply;
}

async function attempts(r: ModelRequest, chat: ChatTelemetry): Promise<ModelReply> {
  let shown = "";
  for (let attempt = 1; ; attempt++) {
    const echo = new RetryEcho(
      shown,
      (delta) => r.onText(delta),
      (partial) => r.onDiscard(partial),
    );
    const tally = new AttemptTally();
    try {
      return await attemptOnce(r, echo, tally, chat);
    } catch (thrown) {
      const partialText = echo.streamed;
      shown = echo.seen();
      if (r.signal.aborted) return { ok: false, aborted: true, partialText, cut: tally.cut(partialText) };
      const error = backendFailure(r.backend, thrown);
      if (await r.onError(error)) return { ok: false, aborted: false, error, partialText, handled: true };
      const delay = retryDelayMs(r.policy, error, attempt);
      if (delay === undefined) return { ok: false, aborted: false, error, partialText, handled: false };
      const maxAttempts = attemptsFor(r.policy, error);
      chat.retry(error, attempt, delay, maxAttempts);
      r.onRetry(error, attempt, delay, maxAttempts);
      try {
        await sleep(delay, r.signal);
      } catch {
        return { ok: false, aborted: true, partialText: "" };
      }
    }
  }
}

async function attemptOnce(
  r: ModelRequest,
  echo: RetryEcho,
  tally: AttemptTally,
  chat: ChatTelemetry,
): Promise<ModelReply> {
  r.signal.throwIfAborted();
  chat.attempt();
  const attempt = new AbortController();
  const stopAttempt = () => attempt.abort(r.signal.reason);
  r.signal.addEventListener("abort", stopAttempt, { once: true });
  const idleMs = r.policy.idleTimeoutMs;
  // One timer, pushed back by every event (refresh), rather than a new one per streamed delta.
  const idle = setTimeout(() => attempt.abort(new StreamIdleError(r.backend, idleMs)), idleMs);
  try {
    for await (const event of r.backend.chatStream(r.messages, r.tools, r.params, attempt.signal)) {
      idle.refresh();
      if (chat.firstEvent === 0) chat.firstEvent = performance.now();
      switch (event.type) {
        case "text":
          echo.text(event.delta);
          break;
        case "reasoning":
          tally.output(event.delta);
          r.onReasoning(event.delta);
          break;
        case "tool_call_delta":
          tally.output(event.argsDelta);
          break;
        case "usage":
          tally.reported = event.usage;
          break;
        case "done":
          chat.served(event.model, event.id);
          return {
            ok: true,
            message: event.message,
            usage: tally.reported,
            reason: event.reason,
            ...(event.raw !== undefined && { raw: event.raw }),
          };
      }
    }
    throw new TransientError({
      ...sourceOf(r.backend),
      providerMessage: "the stream ended without a reply",
    });
  } catch (error) {
    // An idle abort surfaces as whatever the transport throws; report it as what it was.
    if (!r.signal.aborted && attempt.signal.reason instanceof StreamIdleError) throw attempt.signal.reason;
    throw error;
  } finally {
    clearTimeout(idle);
    r.signal.removeEventListener("abort", stopAttempt);
  }
}

/** Whether a failure was a rate limit (for the `limitretry` event) rather than another transient one. */
export const isRateLimit = (error: unknown): error is RateLimitError => error instanceof RateLimitError;
