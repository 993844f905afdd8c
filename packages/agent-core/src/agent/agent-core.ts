import { randomUUID } from "node:crypto";
import type { Message, Tool, ToolResultMessage } from "@ollie/backends";
import type { SpendingGate } from "../budget/spending-gate.js";
import { type CompactionDone, type CompactionHost, compactAgent } from "../compaction/agent-compaction.js";
import {
  type CompactionOptions,
  type CompactionTrigger,
  DEFAULT_COMPACTION,
} from "../compaction/compaction-options.js";
import { type ContextFigures, ContextMeter } from "../context/context-meter.js";
import type { AgentEvent, AgentListener, AgentState } from "../events/agent-events.js";
import type { TurnOutcome } from "../events/turn-outcome.js";
import { History } from "../history/history.js";
import { emptyTaskState, type TaskState } from "../history/task-state.js";
import { UsageMeter } from "../history/usage-meter.js";
import { CONTINUE, type HookEvent, type HookResult } from "../hooks/agent-hooks.js";
import { errorFields } from "../hooks/error-fields.js";
import { DEFAULT_DISPATCH, type DispatchOptions } from "../loop/dispatch.js";
import { DEFAULT_SAFETY_LIMITS, type SafetyLimits } from "../loop/safety.js";
import type { TurnContext } from "../loop/turn-context.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../model/retry-policy.js";
import type { PersistedSession } from "../persist/persisted-session.js";
import { newSessionId } from "../persist/session-id.js";
import { type Runtime, refreshRuntime } from "../runtime/runtime.js";
import { traceHook } from "../telemetry/hook-span.js";
import type { TurnTrace } from "../telemetry/turn-span.js";
import type { AgentOptions } from "./agent-options.js";
import type { BoundedQueue } from "./bounded-queue.js";
import { ChangeWatch } from "./change-watch.js";
import { SessionRecorder } from "./session-recorder.js";

/** Events that come after the fact, with nothing left to block: postCompact (the compaction is done). */
const AFTER_THE_FACT: ReadonlySet<HookEvent> = new Set(["postCompact"]);

export type Watched = { state: AgentState; name: string };

const NO_LISTENERS: readonly AgentListener[] = [];

/** A submitted prompt waiting its turn, how its submission is settled, and where its turn's span belongs. */
export interface QueuedPrompt {
  prompt: string;
  settle(outcome: TurnOutcome): void;
  trace: TurnTrace;
}

/** AgentOptions without the saved state an agent starts from. */
export type LastingOptions = Omit<AgentOptions, "history" | "taskState" | "usage" | "compactionUsage">;

/** `options` less the start-up state, so what keeps the options (and the runtime's spec) does not keep it. */
export function lasting(options: AgentOptions): LastingOptions {
  const { history: _history, taskState: _taskState, usage: _usage, compactionUsage: _c, ...rest } = options;
  return rest;
}

/**
 * An agent's state and the services its turns and compactions use — what `runTurn` and `compactAgent` see
 * of it. Internal: `Agent` is the public face, and adds the queue and the turn lifecycle.
 */
export class AgentCore implements TurnContext, CompactionHost {
  readonly id: string;
  readonly sessionId: string;
  readonly cwd: string | undefined;
  name: string;
  profile: string | undefined;
  /** What the agent shows it is doing: the last of what runs beside the loop, else the loop's own step. */
  state: AgentState = "idle";
  /** The loop's own step: idle between turns, else thinking or calling. */
  private step: AgentState = "idle";
  /**
   * What runs beside the loop's step, oldest first — hooks, a compaction, prompt commands — made when
   * something starts and dropped when the last ends. Several can run at once: the preTool hooks of calls
   * running together, a hook inside a compaction.
   */
  private beside: AgentState[] | undefined;
  runtime: Runtime;
  readonly history: History;
  readonly usage: UsageMeter;
  taskState: TaskState;
  // The policies are the shared defaults unless the options change them: an agent copies only what differs.
  readonly retry: RetryPolicy;
  readonly safety: SafetyLimits;
  readonly dispatch: DispatchOptions;
  private readonly ownSpending: SpendingGate | undefined;
  readonly compaction: CompactionOptions;
  autoCompactions = 0;
  /**
   * What an idle agent does not need is made on first use — the meter at the first request, the watch at
   * the first wait, the injections at the first inject — so that many idle agents cost little. Listeners
   * are a copy-on-write array: emit walks the one it started with, whoever subscribes meanwhile.
   */
  private lazyMeter: ContextMeter | undefined;
  private lazyWatch: ChangeWatch<Watched> | undefined;
  private listenerList: readonly AgentListener[];
  private pending: string[] | undefined;
  private lazyRecorder: SessionRecorder | undefined;
  /** The history's name (see PersistedSession.historyId): made at the first snapshot, again after a replacement. */
  historyId: string | undefined;
  /** A turn runs, or a close cut one off: saved as `turnRunning`. */
  turnRunning = false;
  /** The results of the round running now, in the order its calls ended: saved, not yet in the history. */
  private roundResults: ToolResultMessage[] | undefined;
  /** Prompts waiting behind the running turn: made at the first submit, dropped when it runs dry. */
  queue: BoundedQueue<QueuedPrompt> | undefined;
  /** Prompts `close` took off the queue: still saved, so that the next start runs them. */
  unrun: readonly string[] | undefined;

  /**
   * What the agent is made with, less the saved state it starts from (not kept: compaction frees it).
   * The Agent reads its own options here, and the runtime's spec is the same object.
   */
  readonly options: LastingOptions;

  constructor(runtime: Runtime, options: AgentOptions, kept: LastingOptions = lasting(options)) {
    this.options = kept;
    this.runtime = runtime;
    this.id = options.id ?? randomUUID();
    this.name = options.name ?? this.id;
    this.profile = options.profile;
    this.cwd = options.cwd;
    this.sessionId = options.sessionId ?? newSessionId();
    this.history = new History(options.history);
    this.usage = new UsageMeter(options.usage, options.compactionUsage);
    this.taskState = options.taskState ?? emptyTaskState();
    this.retry = options.retry ? { ...DEFAULT_RETRY_POLICY, ...options.retry } : DEFAULT_RETRY_POLICY;
    this.safety = options.safety ? { ...DEFAULT_SAFETY_LIMITS, ...options.safety } : DEFAULT_SAFETY_LIMITS;
    this.dispatch = options.dispatch ? { ...DEFAULT_DISPATCH, ...options.dispatch } : DEFAULT_DISPATCH;
    this.ownSpending = options.spending;
    this.compaction = options.compaction
      ? { ...DEFAULT_COMPACTION, ...options.compaction }
      : DEFAULT_COMPACTION;
    this.listenerList = options.onEvent ? [options.onEvent] : NO_LISTENERS;
  }

  /** Tracks the size of the next request (made at the first request or measure). */
  get meter(): ContextMeter {
    this.lazyMeter ??= new ContextMeter();
    return this.lazyMeter;
  }

  /** Waiters for the state or name to change (made at the first wait). */
  get watch(): ChangeWatch<Watched> {
    this.lazyWatch ??= new ChangeWatch<Watched>(() => ({ state: this.state, name: this.name }));
    return this.lazyWatch;
  }

  /** The state or name changed: wakes the waiters, if any. */
  changed(): void {
    this.lazyWatch?.changed();
  }

  /** Text injected and not yet taken by the running turn, oldest first. */
  get injections(): string[] {
    this.pending ??= [];
    return this.pending;
  }

  /** How many injected texts wait for the running turn. */
  get injected(): number {
    return this.pending?.length ?? 0;
  }

  /** The prompts waiting behind the running turn, oldest first. */
  queuedPrompts(): string[] {
    return this.queue?.toArray().map((q) => q.prompt) ?? [];
  }

  /** Adds a listener (once, however often it is added); returns the function that removes it. */
  subscribe(listener: AgentListener): () => void {
    if (!this.listenerList.includes(listener)) this.listenerList = [...this.listenerList, listener];
    return () => {
      this.listenerList = this.listenerList.filter((l) => l !== listener);
    };
  }

  /**
   * Puts `messages` in place of the history; what the meter measured of the old one no longer holds, and the
   * history gets a new name at the next snapshot.
   */
  replaceHistory(messages: readonly Message[]): void {
    this.history.replace(messages);
    this.lazyMeter?.reset();
    this.historyId = undefined;
    this.lazyRecorder?.replaced();
  }

  /** Makes the agent's saves and journal entries (made at the first). */
  private get recorder(): SessionRecorder {
    this.lazyRecorder ??= new SessionRecorder(this);
    return this.lazyRecorder;
  }

  /** Whether anything is saved at all. */
  private get keeps(): boolean {
    return this.options.persist !== undefined || this.options.journal !== undefined;
  }

  recordRound(): Promise<void> {
    this.roundResults = [];
    return this.keeps ? this.recorder.round() : Promise.resolve();
  }

  recordResult(result: ToolResultMessage): Promise<void> {
    this.roundResults?.push(result);
    return this.keeps ? this.recorder.result(result) : Promise.resolve();
  }

  endRound(results: readonly ToolResultMessage[]): void {
    const before = this.history.length;
    this.history.append(...results);
    this.roundResults = undefined;
    this.lazyRecorder?.roundEnded(before);
  }

  saveRound(): Promise<void> {
    // The journal holds the round: the whole save waits for the end of the turn.
    return this.lazyRecorder?.journaling ? Promise.resolve() : this.persist();
  }

  emit(event: AgentEvent): void {
    for (const listener of this.listenerList) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the agent carries on.
      }
    }
  }

  /** Sets the loop's step; it shows once nothing runs beside it. */
  setState(state: AgentState): void {
    this.step = state;
    this.show();
  }

  /**
   * Shows `state` while `work` runs (a hook, a compaction, prompt commands), over the loop's step and what
   * began before it; then whatever still runs, else the step. The state is shown before this returns.
   */
  async busyWith<T>(state: AgentState, work: () => Promise<T>): Promise<T> {
    this.beside ??= [];
    this.beside.push(state);
    this.show();
    try {
      return await work();
    } finally {
      // Entries with the same state are alike: whichever is taken out, the same ones stay.
      this.beside.splice(this.beside.lastIndexOf(state), 1);
      if (this.beside.length === 0) this.beside = undefined;
      this.show();
    }
  }

  private show(): void {
    const state = this.beside?.at(-1) ?? this.step;
    if (state === this.state) return;
    this.state = state;
    this.emit({ type: "state", state });
    this.changed();
  }

  takeInjections(): string[] {
    return this.pending?.splice(0) ?? [];
  }

  async refreshRuntime(signal: AbortSignal): Promise<void> {
    this.runtime = await refreshRuntime(this.runtime, signal);
  }

  async readPlanStep(): Promise<string | undefined> {
    return this.options.readPlanStep?.();
  }

  /**
   * The session as it would be saved now: the results of the running round that have come in follow its
   * reply, in the order of its calls.
   */
  snapshot(): PersistedSession {
    const queued = [...(this.unrun ?? []), ...this.queuedPrompts()];
    this.historyId ??= randomUUID();
    return {
      version: 1,
      id: this.sessionId,
      agentId: this.id,
      name: this.name,
      ...(this.profile !== undefined && { agent: this.profile }),
      ...(this.cwd !== undefined && { cwd: this.cwd }),
      messages: [...this.history.messages, ...this.finishedCalls()],
      taskState: { ...this.taskState, constraints: [...this.taskState.constraints] },
      usage: { ...this.usage.session },
      ...(this.usage.compaction.requests > 0 && { compactionUsage: { ...this.usage.compaction } }),
      savedAt: new Date().toISOString(),
      ...(queued.length > 0 && { queued: [...queued] }),
      ...(this.turnRunning && { turnRunning: true }),
      historyId: this.historyId,
    };
  }

  /** The running round's results so far, in the order of its calls (the reply that made them ends the history). */
  private finishedCalls(): ToolResultMessage[] {
    const results = this.roundResults;
    if (!results?.length) return [];
    const reply = this.history.messages.at(-1);
    const calls = reply?.role === "assistant" ? (reply.toolCalls ?? []).map((c) => c.id) : [];
    return [...results].sort((a, b) => calls.indexOf(a.toolCallId) - calls.indexOf(b.toolCallId));
  }

  /** Saves now (one save or journal entry at a time); a failure becomes an `error` event. */
  persist(): Promise<void> {
    if (!this.options.persist) return Promise.resolve();
    return this.recorder.persist();
  }

  /** The fields every hook payload carries. */
  hookPayload(event: string, extra: Record<string, unknown>): Record<string, unknown> {
    return {
      event,
      session_id: this.sessionId,
      agent_id: this.id,
      agent: this.name,
      profile: this.profile,
      cwd: this.cwd,
      model: this.runtime.backend.model,
      ...extra,
    };
  }

  /**
   * Runs an event's hooks, reporting their warnings; no hooks means continue. Every source of hooks (shell
   * commands, functions in this process) goes through here, so this is where an event that cannot block is
   * decided: the hooks are told, and a block they return anyway is reported and ignored.
   */
  async hook(event: HookEvent, extra: Record<string, unknown>, signal?: AbortSignal): Promise<HookResult> {
    const hooks = this.runtime.spec.hooks;
    if (!hooks?.run || hooks.handles?.(event) === false) return CONTINUE;
    const canBlock = !AFTER_THE_FACT.has(event);
    const payload = this.hookPayload(event, extra);
    const result = await traceHook(
      event,
      () => this.busyWith(`hook: ${event}`, () => hooks.run!(event, payload, signal, canBlock)),
      (r) => ({ action: r.action, warnings: r.warnings.length }),
    );
    for (const warning of result.warnings) this.emit({ type: "info", message: `warning: ${warning}` });
    if (result.action === "block" && !canBlock) {
      const said = result.output ? `: ${result.output}` : "";
      this.emit({ type: "info", message: `warning: the ${event} hook cannot block${said}` });
      return CONTINUE;
    }
    return result;
  }

  async turnError(error: unknown, signal: AbortSignal): Promise<boolean> {
    const hooks = this.runtime.spec.hooks;
    if (!hooks?.turnError || hooks.handles?.("turnError") === false) return false;
    const payload = this.hookPayload("turnError", errorFields(error));
    const work = () => this.busyWith("hook: turnError", () => hooks.turnError!(payload, signal));
    return traceHook("turnError", work, (taken) => ({ action: taken ? "handled" : "continue", warnings: 0 }));
  }

  compact(trigger: CompactionTrigger, signal: AbortSignal): Promise<CompactionDone> {
    return this.busyWith("compacting", () => compactAgent(this, trigger, signal));
  }

  counted(messages: readonly Message[], inputTokens: number): void {
    this.meter.record(messages, inputTokens);
  }

  /** The gate asked before each request: the agent's own (AgentOptions.spending), else its profile's. */
  get spending(): SpendingGate | undefined {
    return this.ownSpending ?? this.runtime.spec.spending;
  }

  async contextLength(): Promise<number> {
    if (this.options.contextLength !== undefined) return this.options.contextLength;
    const said = await this.runtime.backend.contextLength().catch(() => undefined);
    return said ?? this.compaction.fallbackContextLength;
  }

  async measure(messages: readonly Message[], tools: readonly Tool[]): Promise<ContextFigures> {
    const { tokens, counted } = this.meter.measure(messages, tools);
    const contextLength = await this.contextLength();
    return { tokens, contextLength, fraction: tokens / contextLength, counted };
  }
}
