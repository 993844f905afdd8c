import type { Backend, Message } from "@ollie/backends";
import { askSpendingGate, type GatedAgent } from "../budget/ask-gate.js";
import type { AgentEvent, AgentState } from "../events/agent-events.js";
import { describeError } from "../events/describe-error.js";
import { usageEvent } from "../events/usage-event.js";
import type { History } from "../history/history.js";
import { hookNote } from "../history/nudge.js";
import type { TaskState } from "../history/task-state.js";
import type { HookEvent, HookResult } from "../hooks/agent-hooks.js";
import type { RetryPolicy } from "../model/retry-policy.js";
import { buildRuntime, type Runtime } from "../runtime/runtime.js";
import { type CompactionNote, traceCompaction } from "../telemetry/compaction-span.js";
import { countCost } from "../telemetry/cost.js";
import { compactHistory } from "./compact.js";
import type { CompactionOptions, CompactionTrigger } from "./compaction-options.js";

/** What compacting an agent reads and changes of it. */
export interface CompactionHost extends GatedAgent {
  readonly sessionId: string;
  /** The profile the agent runs, for the cost counter. */
  readonly profile: string | undefined;
  readonly history: History;
  taskState: TaskState;
  runtime: Runtime;
  readonly retry: RetryPolicy;
  readonly compaction: CompactionOptions;
  /** Puts `messages` in place of the history (and forgets what was measured of the old one). */
  replaceHistory(messages: readonly Message[]): void;
  contextLength(): Promise<number>;
  hook(event: HookEvent, extra: Record<string, unknown>, signal: AbortSignal): Promise<HookResult>;
  emit(event: AgentEvent): void;
  /** Shows `state` while `work` runs. */
  busyWith<T>(state: AgentState, work: () => Promise<T>): Promise<T>;
}

/**
 * What a compaction did: whether the history was replaced, whether that saved enough to count as progress,
 * and — when the spending gate refused its request — why.
 */
export interface CompactionDone {
  compacted: boolean;
  progress: boolean;
  budget?: string;
}

/**
 * Compacts an agent's history: the preCompact hook may refuse it (or add instructions for the summary); the
 * summary comes from the profile's compaction backend or model; the system prompt's commands are run again
 * (rules and context they bring must survive); the postCompact hook's output joins the context. Resolves
 * whether the history was replaced and saved enough to count as progress. Never throws: a failure is an
 * `error` event, and the old history stays.
 */
export function compactAgent(
  host: CompactionHost,
  trigger: CompactionTrigger,
  signal: AbortSignal,
): Promise<CompactionDone> {
  return traceCompaction(trigger, (note) => compact(host, trigger, signal, note));
}

async function compact(
  host: CompactionHost,
  trigger: CompactionTrigger,
  signal: AbortSignal,
  note: CompactionNote,
): Promise<CompactionDone> {
  const contextLength = await host.contextLength();
  const pre = await host.hook("preCompact", { trigger, messages: host.history.length }, signal);
  if (pre.action === "block") {
    host.emit({ type: "info", message: `the preCompact hook prevented the compaction: ${pre.output}` });
    return { compacted: false, progress: false };
  }
  const runtime = host.runtime;
  const spec = runtime.spec;
  const backend = spec.compactionBackend ?? runtime.backend;
  // Asked before the backend's model is switched for the summary: a refusal leaves everything as it was.
  const overBudget = await askSpendingGate(
    host,
    {
      provider: backend.provider,
      model: spec.compactionBackend ? backend.model : (spec.compactionModel ?? backend.model),
    },
    host.history.messages,
    runtime.toolSchemas,
    "compaction",
  );
  if (overBudget !== undefined) {
    host.emit({ type: "info", message: `the compaction was not made: budget: ${overBudget}` });
    return { compacted: false, progress: false, budget: overBudget };
  }
  const restoreModel = swapModel(backend, spec.compactionBackend ? undefined : spec.compactionModel);
  // The model that writes the summary, for the compaction event.
  const summaryModel = backend.model;
  try {
    const result = await compactHistory({
      messages: host.history.messages,
      taskState: host.taskState,
      tools: runtime.toolInfo,
      toolSchemas: runtime.toolSchemas,
      preamble: runtime.preamble,
      backend,
      options: host.compaction,
      retry: host.retry,
      sessionId: host.sessionId,
      trigger,
      contextLength,
      extraInstructions: pre.output,
      signal,
      onUsage: (usage, model) => {
        const costUsd = host.usage.addCompaction(model, usage, trigger !== "command");
        countCost(costUsd, host.profile, backend, model);
        host.emit(usageEvent(host.usage, usage, costUsd, model));
      },
    });
    restoreModel();
    note.tokensBefore = result.tokensBefore;
    note.tokensAfter = result.tokensAfter;
    host.replaceHistory(result.messages);
    host.taskState = result.taskState;
    if (spec.reloadPrompt || spec.reloadSystemPrompt) {
      const [prompt, systemPrompt] = await host.busyWith("prompt commands", () =>
        Promise.all([spec.reloadPrompt?.(), spec.reloadSystemPrompt?.()]),
      );
      host.runtime = await buildRuntime(
        {
          ...spec,
          ...(prompt !== undefined && { prompt }),
          ...(systemPrompt !== undefined && { systemPrompt }),
        },
        signal,
      );
    }
    const post = await host.hook(
      "postCompact",
      {
        trigger,
        tokens_before: result.tokensBefore,
        tokens_after: result.tokensAfter,
        snapshot: result.snapshot,
      },
      signal,
    );
    if (post.action === "continue" && post.output)
      host.history.append({ role: "user", content: hookNote("postCompact", post.output) });
    host.emit({
      type: "compaction",
      trigger,
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
      dropped: result.dropped.length,
      ...(result.snapshot && { snapshot: result.snapshot }),
      ...(result.dropped.length > 0 && { model: summaryModel }),
    });
    return { compacted: true, progress: result.progress };
  } catch (error) {
    restoreModel();
    if (signal.aborted) return { compacted: false, progress: false };
    note.failure = error;
    host.emit({
      type: "error",
      message: `the compaction failed and the history was kept as it was: ${describeError(error)}`,
      error,
    });
    return { compacted: false, progress: false };
  }
}

/** Points `backend` at `model` for the summary; returns what puts it back. */
function swapModel(backend: Backend, model: string | undefined): () => void {
  if (model === undefined || model === backend.model) return () => {};
  const before = backend.model;
  backend.setModel(model);
  return () => backend.setModel(before);
}
