import type { AssistantMessage, ToolResultMessage } from "@ollie/backends";
import { describeError } from "../events/describe-error.js";
import { inferTaskState, renderTaskState } from "../history/task-state.js";
import { noteNudge, noteSafetyStop } from "../telemetry/turn-events.js";
import { type SafetyMonitor, SafetyStopError } from "./safety.js";
import type { TurnContext } from "./turn-context.js";
import { addUserMessage } from "./turn-start.js";

/**
 * After a round of calls: the task state learns what was done, the safety monitor judges the round (a
 * stop comes back as an error; with the runtime's `guidance`, nudges and the task state go to the model),
 * the tool list is refreshed if it changed, and the session is saved (unless the journal holds the round
 * already).
 */
export async function afterRound(
  t: TurnContext,
  safety: SafetyMonitor,
  reply: AssistantMessage,
  results: readonly ToolResultMessage[],
  signal: AbortSignal,
): Promise<SafetyStopError | undefined> {
  const calls = reply.toolCalls ?? [];
  const planFileStep = await t.readPlanStep().catch(() => undefined);
  t.taskState = inferTaskState(t.taskState, {
    text: reply.content,
    lastCall: calls.at(-1)!,
    lastResult: results.at(-1)?.content ?? "",
    ...(planFileStep !== undefined && { planFileStep }),
  });
  const verdict = safety.afterRound({
    text: reply.content,
    calls,
    failed: results.map((r) => r.isError === true),
    lastAction: t.taskState.lastAction,
  });
  if (verdict.abort !== undefined) {
    noteSafetyStop(verdict.abort);
    return new SafetyStopError(verdict.abort);
  }
  if (t.runtime.guidance) {
    for (const nudge of verdict.nudges) {
      noteNudge(nudge);
      addUserMessage(t, nudge, "ollie");
      t.emit({ type: "info", message: nudge });
    }
    if (verdict.reinjectTaskState) addUserMessage(t, renderTaskState(t.taskState), "ollie");
  }
  await t.refreshRuntime(signal).catch((error: unknown) => {
    t.emit({
      type: "error",
      message: `the tool list could not be refreshed: ${describeError(error)}`,
      error,
    });
  });
  await t.saveRound();
  return undefined;
}
