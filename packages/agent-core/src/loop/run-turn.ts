import { type AssistantMessage, ContextOverflowError } from "@ollie/backends";
import { BudgetStopError } from "../agent/errors.js";
import { askSpendingGate } from "../budget/ask-gate.js";
import { describeError } from "../events/describe-error.js";
import type { StopNotice } from "../events/stop-notice.js";
import type { TurnError, TurnOutcome } from "../events/turn-outcome.js";
import { noteMaxSteps } from "../telemetry/turn-events.js";
import { afterRound } from "./after-round.js";
import { askModel } from "./ask-model.js";
import { refuseCalls, runCallRound } from "./call-round.js";
import { nextRequest } from "./next-request.js";
import { recoverFromOverflow } from "./overflow-recovery.js";
import { ReadCache } from "./read-cache.js";
import { recordCutRequest, recordReply } from "./record-reply.js";
import { SafetyMonitor } from "./safety.js";
import type { TurnContext } from "./turn-context.js";
import { addUserMessage, takePrompt } from "./turn-start.js";

/**
 * One turn: the prompt goes in, then model requests and rounds of tool calls alternate until the model
 * answers without calling tools, the turn is interrupted, a failure ends it, or the step limit is reached.
 * Never throws; the history stays valid for the next request whatever happens. The session is saved as the
 * prompt is taken and at the end; a round is recorded before its calls run and each result as its call ends
 * (see AgentOptions.journal), and without a journal the session is saved after each round too.
 */
export async function runTurn(t: TurnContext, prompt: string, signal: AbortSignal): Promise<TurnOutcome> {
  t.usage.startTurn();
  t.turnRunning = true;
  const safety = new SafetyMonitor(t.safety);
  const cache = new ReadCache(t.cwd ?? process.cwd());
  let steps = 0;
  let reply: AssistantMessage | undefined;
  let stop: StopNotice | undefined;
  /** The step limit, once it is reached. */
  let maxSteps: number | undefined;
  let overflowCompacted = false;
  let firstError = true;
  let coldFrom = 0;
  // What every outcome says, as it stands when the turn ends.
  const sofar = () => ({
    steps,
    usage: { ...t.usage.turn },
    ...(reply && { reply }),
    ...(stop && { stop }),
  });
  // The outcome is reported before the state goes back to idle: whoever sees idle sees a finished turn.
  const finish = async (outcome: TurnOutcome): Promise<TurnOutcome> => {
    t.usage.endTurn();
    t.turnRunning = false;
    await t.persist();
    if (outcome.status === "error")
      t.emit({ type: "error", message: describeError(outcome.error), error: outcome.error });
    t.emit({ type: "turn", outcome });
    t.setState("idle");
    return outcome;
  };
  // Stopped because a budget it is charged to was spent elsewhere (Agent.stopForBudget): a budget ending.
  const interrupted = (partial = "") =>
    signal.reason instanceof BudgetStopError
      ? finish({ ...sofar(), status: "budget", reason: signal.reason.budget })
      : finish({ ...sofar(), status: "interrupted", partial });
  const failed = (error: TurnError) => finish({ ...sofar(), status: "error", error });
  // The turnError hook hears the turn's first failure only.
  const onError = async (error: unknown) => {
    if (!firstError) return false;
    firstError = false;
    return t.turnError(error, signal);
  };

  const refusal = await takePrompt(t, prompt, signal);
  if (refusal !== undefined)
    return finish({ status: "blocked", reason: refusal, steps, usage: { ...t.usage.turn } });

  for (;;) {
    for (const text of t.takeInjections()) addUserMessage(t, text, "inject");
    if (signal.aborted) return interrupted();
    t.setState("thinking");
    const plan = await nextRequest(t, signal);
    if (plan === undefined) return interrupted();
    const refused = await askSpendingGate(t, plan.runtime.backend, plan.messages, plan.tools, "turn");
    if (refused !== undefined) return finish({ ...sofar(), status: "budget", reason: refused });
    const answer = await askModel(t, plan, signal, onError);

    if (!answer.ok) {
      const partial = answer.partialText;
      if (partial !== "") t.history.append({ role: "assistant", content: partial });
      if (answer.aborted && answer.cut) await recordCutRequest(t, plan, answer.cut);
      if (answer.aborted || signal.aborted) return interrupted(partial);
      if (answer.handled) return finish({ ...sofar(), status: "handled", error: answer.error });
      if (!(answer.error instanceof ContextOverflowError)) return failed(answer.error);
      const recovery = await recoverFromOverflow(t, answer.error, overflowCompacted, signal);
      if (recovery === "interrupted") return interrupted();
      if (!(recovery instanceof ContextOverflowError) && recovery !== "retry")
        return finish({ ...sofar(), status: "budget", reason: recovery.budget });
      if (recovery !== "retry") return failed(recovery);
      overflowCompacted = true;
      continue;
    }

    reply = answer.message;
    ({ stop, coldFrom } = recordReply(t, plan, answer, coldFrom));
    const calls = reply.toolCalls ?? [];
    if (calls.length === 0)
      return finish(
        maxSteps === undefined
          ? { ...sofar(), status: "done", reply }
          : { ...sofar(), status: "maxsteps", reply, maxSteps },
      );
    for (const call of calls) t.emit({ type: "call", call });
    if (maxSteps !== undefined) {
      // The limit is hard: a call after the last warning is not run, and the turn ends.
      refuseCalls(t, calls, steps);
      return finish({ ...sofar(), status: "maxsteps", reply, maxSteps });
    }
    // Durable before anything runs: a process killed from here on restarts knowing what it was doing.
    await t.recordRound();
    const results = await runCallRound(t, plan.runtime, calls, cache, signal);
    t.endRound(results);
    steps++;
    if (signal.aborted) return interrupted();
    const stopped = await afterRound(t, safety, reply, results, signal);
    if (stopped) return failed(stopped);

    if (steps >= plan.runtime.maxSteps) {
      // The last step: the next reply ends the turn.
      maxSteps = plan.runtime.maxSteps;
      t.emit({ type: "maxsteps", steps });
      noteMaxSteps(steps);
      addUserMessage(
        t,
        `This turn has used all ${steps} of its steps. Do not call any more tools: answer now with what you found and what remains to be done. A tool call now is not run, and it ends the turn.`,
        "ollie",
      );
    }
  }
}
