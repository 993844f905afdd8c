import {
  type AssistantMessage,
  ContextOverflowError,
  type Message,
  type Tool,
  type ToolResultMessage,
} from "@ollie/backends";
import { SafetyStopError } from "../agent/errors.js";
import type { AgentEvent, AgentState, TurnOutcome, TurnStatus } from "../agent/events.js";
import { type Runtime, requestMessages } from "../agent/runtime.js";
import {
  type CompactionOptions,
  type CompactionTrigger,
  compactionDecision,
} from "../compaction/compaction-options.js";
import type { ContextFigures } from "../context/context-meter.js";
import type { History } from "../history/history.js";
import { collapseCold } from "../history/tiers.js";
import type { UsageMeter } from "../history/usage-meter.js";
import type { HookEvent, HookResult } from "../hooks/agent-hooks.js";
import { type DispatchOptions, dispatchCalls } from "./dispatch.js";
import { isRateLimit, requestReply } from "./model-request.js";
import { hookNote, NUDGE_PREFIX } from "./nudge.js";
import { ReadCache } from "./read-cache.js";
import type { RetryPolicy } from "./retry-policy.js";
import { type SafetyLimits, SafetyMonitor } from "./safety.js";
import { type StopNotice, stopNotice } from "./stop-notice.js";
import { inferTaskState, renderTaskState, type TaskState } from "./task-state.js";

/** What a turn reads and changes of its agent. */
export interface TurnContext {
  readonly runtime: Runtime;
  /** Looks for a changed tool set after a round of calls, and rebuilds the runtime if it changed. */
  refreshRuntime(signal: AbortSignal): Promise<void>;
  readonly history: History;
  readonly usage: UsageMeter;
  /** Where relative paths (read-cache files) are resolved; this process's cwd when unset. */
  readonly cwd: string | undefined;
  taskState: TaskState;
  readonly retry: RetryPolicy;
  readonly safety: SafetyLimits;
  readonly dispatch: DispatchOptions;
  emit(event: AgentEvent): void;
  setState(state: AgentState): void;
  /** Text injected while the turn runs, to be put before the model at the next step. */
  takeInjections(): string[];
  /** Saves the session; never throws (a failure is reported as an event). */
  persist(): Promise<void>;
  readPlanStep(): Promise<string | undefined>;
  /** Runs an event's hooks (reporting their warnings). */
  hook(event: HookEvent, extra: Record<string, unknown>, signal: AbortSignal): Promise<HookResult>;
  /** The turnError hook: true when it took the failure over. Called once per turn, at the first failure. */
  turnError(error: unknown, signal: AbortSignal): Promise<boolean>;
  readonly compaction: CompactionOptions;
  /** Compacts the history; never throws. */
  compact(
    trigger: CompactionTrigger,
    signal: AbortSignal,
  ): Promise<{ compacted: boolean; progress: boolean }>;
  /** Automatic compactions since the last prompt from the user. */
  autoCompactions: number;
  /** The size of a request against the model's window. */
  measure(messages: readonly Message[], tools: readonly Tool[]): Promise<ContextFigures>;
  /** The provider counted a request over `messages` at `inputTokens`. */
  counted(messages: readonly Message[], inputTokens: number): void;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * One turn: the prompt goes in, then model requests and rounds of tool calls alternate until the model
 * answers without calling tools, the turn is interrupted, a failure ends it, or the step limit is reached.
 * Never throws; the history stays valid for the next request whatever happens.
 */
export async function runTurn(t: TurnContext, prompt: string, signal: AbortSignal): Promise<TurnOutcome> {
  t.usage.startTurn();
  const safety = new SafetyMonitor(t.safety);
  let steps = 0;
  let reply: AssistantMessage | undefined;
  let stop: StopNotice | undefined;
  let lastStep = false;
  let overflowCompacted = false;
  let firstError = true;
  let coldFrom = 0;
  const cache = new ReadCache(t.cwd ?? process.cwd());
  // The outcome is reported before the state goes back to idle: whoever sees idle sees a finished turn.
  const finish = async (status: TurnStatus, error?: unknown): Promise<TurnOutcome> => {
    t.usage.endTurn();
    await t.persist();
    const outcome: TurnOutcome = {
      status,
      steps,
      usage: { ...t.usage.turn },
      ...(reply && { reply }),
      ...(error !== undefined && { error }),
      ...(stop && { stop }),
    };
    if (status === "error") t.emit({ type: "error", message: describe(error), error });
    t.emit({ type: "turn", outcome });
    t.setState("idle");
    return outcome;
  };
  const addUser = (text: string, from: "user" | "inject" | "ollie") => {
    t.history.append({ role: "user", content: from === "ollie" ? `${NUDGE_PREFIX}${text}` : text });
    t.emit({ type: "user", text, from });
  };

  const pre = await t.hook("preTurn", { prompt }, signal);
  if (pre.action === "block")
    return finish("blocked", new Error(`the preTurn hook blocked the turn: ${pre.output}`));
  const userPrompts = t.runtime.userPrompts;
  const parts = [...userPrompts, prompt];
  if (pre.output) parts.push(pre.output);
  t.history.append({ role: "user", content: parts.join("\n\n") });
  t.emit({ type: "user", text: prompt, from: "user" });
  // Saved as the turn begins: were the process to die now, the restored history says the prompt was taken.
  await t.persist();
  if (t.taskState.objective === "") t.taskState = { ...t.taskState, objective: prompt.slice(0, 500) };

  for (;;) {
    for (const text of t.takeInjections()) addUser(text, "inject");
    if (signal.aborted) return finish("interrupted");
    t.setState("thinking");
    let runtime = t.runtime;
    // The tools are offered on the last step too: a history with calls in it and no tools is refused by
    // some providers, and the prompt cache keeps its prefix. A call made there is not run (below).
    let tools = runtime.toolSchemas;
    let messages = requestMessages(runtime.preamble, t.history.messages);
    const figures = await t.measure(messages, tools);
    const decision = compactionDecision(t.compaction, "threshold", {
      fraction: figures.fraction,
      autoInRow: t.autoCompactions,
    });
    if (decision === "compact") {
      t.autoCompactions++;
      const done = await t.compact("threshold", signal);
      if (signal.aborted) return finish("interrupted");
      if (done.compacted && !done.progress) t.autoCompactions = t.compaction.maxAutoInRow;
      runtime = t.runtime;
      tools = runtime.toolSchemas;
      messages = requestMessages(runtime.preamble, t.history.messages);
    }
    const answer = await requestReply({
      backend: runtime.backend,
      messages,
      tools,
      params: runtime.params,
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
          message: describe(error),
          error,
        }),
      onError: async (error) => {
        if (!firstError) return false;
        firstError = false;
        return t.turnError(error, signal);
      },
    });

    if (!answer.ok) {
      if (answer.partialText !== "") t.history.append({ role: "assistant", content: answer.partialText });
      if (signal.aborted) return finish("interrupted");
      if (answer.handled) return finish("handled", answer.error);
      if (answer.error instanceof ContextOverflowError) {
        const verdict = overflowCompacted
          ? "give up"
          : compactionDecision(t.compaction, "overflow", { fraction: 1, autoInRow: t.autoCompactions });
        let why = "automatic compaction is off";
        if (overflowCompacted && verdict === "give up" && t.compaction.auto)
          why = "it still did not fit after compacting";
        if (verdict === "compact") {
          overflowCompacted = true;
          t.autoCompactions++;
          const done = await t.compact("overflow", signal);
          if (signal.aborted) return finish("interrupted");
          if (done.compacted && done.progress) continue;
          why = done.compacted ? "compaction saved too little" : "the compaction did not happen";
        } else if (t.compaction.auto && t.autoCompactions >= t.compaction.maxAutoInRow) {
          why = `it was already compacted ${t.autoCompactions} times since the last prompt`;
        }
        return finish(
          "error",
          new ContextOverflowError({
            provider: answer.error.provider,
            ...(answer.error.status !== undefined && { status: answer.error.status }),
            providerMessage: `${answer.error.providerMessage} (the conversation does not fit the model's context window, and ${why})`,
          }),
        );
      }
      return finish("error", answer.error);
    }

    reply = answer.message;
    stop = stopNotice(answer.reason, answer.raw, reply, runtime.params.maxTokens);
    if (stop) t.emit({ type: "stopreason", ...stop });
    if (answer.usage) t.counted(messages, answer.usage.inputTokens);
    t.history.append(reply);
    coldFrom = collapseCold(t.history, runtime.toolInfo, coldFrom, t.history.length - 1);
    if (answer.usage) {
      const costUsd = t.usage.add(runtime.backend.model, answer.usage);
      t.emit({
        type: "usage",
        request: answer.usage,
        costUsd,
        turn: { ...t.usage.turn },
        session: { ...t.usage.session },
      });
    }
    const calls = reply.toolCalls ?? [];
    if (calls.length === 0) return finish(lastStep ? "maxsteps" : "done");

    for (const call of calls) t.emit({ type: "call", call });
    if (lastStep) {
      // The limit is hard: a call after the last warning is not run, and the turn ends. Each call still gets
      // a result, so the history stays a valid request for every provider.
      const refused = calls.map(
        (call): ToolResultMessage => ({
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: `${call.name} was not run: this turn has used all ${steps} of its steps, and it ends here.`,
          isError: true,
        }),
      );
      t.history.append(...refused);
      for (const [i, call] of calls.entries()) t.emit({ type: "tool", call, result: refused[i]! });
      return finish("maxsteps");
    }
    const results = await dispatchCalls({
      calls,
      tools: runtime.toolInfo,
      executor: runtime.tools,
      options: t.dispatch,
      signal,
      onStart: (group) => t.setState(`calling: ${group.map((c) => c.name).join(", ")}`),
      onResult: (call, result) => t.emit({ type: "tool", call, result }),
      cache,
      beforeCall: async (call, callSignal) => {
        const pre = await t.hook(
          "preTool",
          { tool: call.name, call_id: call.id, args: call.arguments },
          callSignal,
        );
        return pre.action === "block" ? pre.output : undefined;
      },
      afterCall: async (call, result, callSignal) => {
        const post = await t.hook(
          "postTool",
          {
            tool: call.name,
            call_id: call.id,
            args: call.arguments,
            result: result.content,
            is_error: result.isError === true,
          },
          callSignal,
        );
        if (post.action === "block") return { ...result, content: post.output };
        return post.output
          ? { ...result, content: `${result.content}\n\n${hookNote("postTool", post.output)}` }
          : result;
      },
    });
    t.history.append(...results);
    steps++;
    if (signal.aborted) return finish("interrupted");

    const last = calls.at(-1)!;
    const planFileStep = await t.readPlanStep().catch(() => undefined);
    t.taskState = inferTaskState(t.taskState, {
      text: reply.content,
      lastCall: last,
      lastResult: results.at(-1)?.content ?? "",
      ...(planFileStep !== undefined && { planFileStep }),
    });
    const verdict = safety.afterRound({
      text: reply.content,
      calls,
      failed: results.map((r) => r.isError === true),
      lastAction: t.taskState.lastAction,
    });
    if (verdict.abort !== undefined) return finish("error", new SafetyStopError(verdict.abort));
    for (const nudge of verdict.nudges) {
      addUser(nudge, "ollie");
      t.emit({ type: "info", message: nudge });
    }
    if (verdict.reinjectTaskState) addUser(renderTaskState(t.taskState), "ollie");

    await t.refreshRuntime(signal).catch((error: unknown) => {
      t.emit({ type: "error", message: `the tool list could not be refreshed: ${describe(error)}`, error });
    });
    await t.persist();

    if (steps >= runtime.maxSteps && !lastStep) {
      lastStep = true;
      t.emit({ type: "maxsteps", steps });
      addUser(
        `This turn has used all ${steps} of its steps. Do not call any more tools: answer now with what you found and what remains to be done. A tool call now is not run, and it ends the turn.`,
        "ollie",
      );
    }
  }
}
