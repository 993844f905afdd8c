import { type StopNotice, stopNotice } from "../events/stop-notice.js";
import { usageEvent } from "../events/usage-event.js";
import { collapseCold } from "../history/tiers.js";
import { type CutRequest, cutRequestUsage } from "../model/cut-request.js";
import type { ModelReply } from "../model/model-request.js";
import { countCost } from "../telemetry/cost.js";
import type { RequestPlan } from "./next-request.js";
import type { TurnContext } from "./turn-context.js";

/** A reply as the model request gave it. */
type Reply = Extract<ModelReply, { ok: true }>;

/**
 * A reply enters the history: how it ended is said when it ended short, the provider's count anchors the
 * context meter, cold results already read are collapsed (from `coldFrom` on; the new start is returned),
 * and its usage and cost are counted.
 */
export function recordReply(
  t: TurnContext,
  plan: RequestPlan,
  reply: Reply,
  coldFrom: number,
): { stop: StopNotice | undefined; coldFrom: number } {
  const { runtime, messages } = plan;
  const stop = stopNotice(reply.reason, reply.raw, reply.message, runtime.params.maxTokens);
  if (stop) t.emit({ type: "stopreason", ...stop });
  if (reply.usage) t.counted(messages, reply.usage.inputTokens);
  t.history.append(reply.message);
  const next = collapseCold(t.history, runtime.toolInfo, coldFrom, t.history.length - 1);
  if (reply.usage) {
    const { backend } = runtime;
    const costUsd = t.usage.add(backend.model, reply.usage);
    countCost(costUsd, t.profile, backend, backend.model);
    t.emit(usageEvent(t.usage, reply.usage, costUsd));
  }
  return { stop, coldFrom: next };
}

/**
 * A request the turn's interruption cut off is counted too: the provider bills it. Its input is the
 * context meter's size of the request, its output what it streamed, both estimates unless the stream had
 * reported usage already; the meter is not anchored to an estimate.
 */
export async function recordCutRequest(t: TurnContext, plan: RequestPlan, cut: CutRequest): Promise<void> {
  const { tokens } = await t.measure(plan.messages, plan.tools);
  const usage = cutRequestUsage(cut, tokens);
  const { backend } = plan.runtime;
  const costUsd = t.usage.add(backend.model, usage);
  countCost(costUsd, t.profile, backend, backend.model);
  t.emit(usageEvent(t.usage, usage, costUsd));
}
