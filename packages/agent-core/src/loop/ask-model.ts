import { describeError } from "../events/describe-error.js";
import { isRateLimit, type ModelReply, requestReply } from "../model/model-request.js";
import type { RequestPlan } from "./next-request.js";
import type { TurnContext } from "./turn-context.js";

/**
 * Sends the request and streams the reply into the agent's events: text, reasoning, retries (rate limits
 * apart) and a partial reply a retry replaced. `onError` sees every failure before any retry.
 */
export function askModel(
  t: TurnContext,
  plan: RequestPlan,
  signal: AbortSignal,
  onError: (error: unknown) => Promise<boolean>,
): Promise<ModelReply> {
  return requestReply({
    backend: plan.runtime.backend,
    messages: plan.messages,
    tools: plan.tools,
    params: plan.runtime.params,
    policy: t.retry,
    signal,
    onText: (delta) => t.emit({ type: "assistant", delta }),
    onDiscard: (partial) => t.emit({ type: "discard", partial }),
    onReasoning: (delta) => t.emit({ type: "reasoning", delta }),
    onRetry: (error, attempt, delayMs, maxAttempts) =>
      t.emit({
        type: isRateLimit(error) ? "limitretry" : "retry",
        attempt,
        maxAttempts,
        delayMs,
        message: describeError(error),
        error,
      }),
    onError,
    purpose: "turn",
    conversationId: t.sessionId,
  });
}
