import { randomUUID } from "node:crypto";
import type { Message, Tool } from "@ollie/backends";
import { type CompactionHost, compactAgent } from "../compaction/agent-compaction.js";
import { type CompactionOptions, DEFAULT_COMPACTION } from "../compaction/compaction-options.js";
import { type ContextFigures, ContextMeter } from "../context/context-meter.js";
import { History } from "../history/history.js";
import { emptyTotals, UsageMeter, type UsageTotals } from "../history/usage-meter.js";
import { CONTINUE, type HookEvent, type HookResult } from "../hooks/agent-hooks.js";
import { DEFAULT_DISPATCH, type DispatchOptions } from "../loop/dispatch.js";
import { hookNote } from "../loop/nudge.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../loop/retry-policy.js";
import { runTurn, type TurnContext } from "../loop/run-turn.js";
import { DEFAULT_SAFETY_LIMITS, type SafetyLimits } from "../loop/safety.js";
import { emptyTaskState, type TaskState } from "../loop/task-state.js";
import type { PersistedSession } from "../persist/persisted-session.js";
import { newSessionId } from "../persist/session-id.js";
import { BoundedQueue } from "./bounded-queue.js";
import { ChangeWatch } from "./change-watch.js";
import {
  AgentBusyError,
  HookBlockedError,
  InjectionsFullError,
  QueueFullError,
  TurnInterruptedError,
} from "./errors.js";
import type { AgentEvent, AgentListener, AgentState, TurnOutcome } from "./events.js";
import { buildRuntime, type Runtime, type RuntimeSpec, refreshRuntime } from "./runtime.js";
import { Submission } from "./submission.js";

/** Loads a profile by name: the runtime it describes, made with a fresh tool executor. */
export type ProfileLoader = (name: string, agent: Agent) => Promise<RuntimeSpec>;

export interface AgentOptions extends RuntimeSpec {
  /** Immutable identity (a 9P uname later); random by default. */
  id?: string;
  /** Display name; the id by default. */
  name?: string;
  /** The profile this runtime came from, if any. */
  profile?: string;
  cwd?: string;
  sessionId?: string;
  /** A history to carry on (restoring a session). */
  history?: readonly Message[];
  taskState?: TaskState;
  /** Session usage so far (restoring a session). */
  usage?: UsageTotals;
  retry?: Partial<RetryPolicy>;
  safety?: Partial<SafetyLimits>;
  dispatch?: Partial<DispatchOptions>;
  /** Prompts that may wait behind the running turn (default 64); more are refused. */
  maxQueue?: number;
  /**
   * Saves the session. Called after every round of tool calls and at the end of every turn, one call at a
   * time; a rejection is reported as an `error` event and does not stop the turn.
   */
  persist?: (session: PersistedSession) => Promise<void>;
  /** The next unchecked step of the session's plan file, for the task state. */
  readPlanStep?: () => Promise<string | undefined>;
  /** A listener subscribed from the start, so it also hears what happens while the agent is made. */
  onEvent?: AgentListener;
  /** How the history is compacted (thresholds, zones, snapshots); `auto: false` turns automatic compaction off. */
  compaction?: Partial<CompactionOptions>;
  /** The model's context window, when the backend's figure should not be used. */
  contextLength?: number;
  /** What `switchProfile` loads profiles with. */
  profiles?: ProfileLoader;
}

type Watched = { state: AgentState; name: string };

/**
 * An agent: an identity, a conversation, and the runtime it answers with (backend, tools, preamble). Turns
 * run one at a time — prompts submitted meanwhile wait in a bounded queue, in order — and everything that
 * happens is reported to subscribers as events. Nothing here knows about 9P or processes: tools arrive
 * through a ToolExecutor, persistence through a callback.
 */
export class Agent {
  readonly id: string;
  readonly sessionId: string;
  readonly cwd: string | undefined;
  private currentName: string;
  private currentProfile: string | undefined;
  private currentState: AgentState = "idle";
  private rt: Runtime;
  private readonly hist: History;
  private readonly meter: UsageMeter;
  private task: TaskState;
  private readonly listeners = new Set<AgentListener>();
  private readonly queue: BoundedQueue<{ prompt: string; settle: (o: TurnOutcome) => void }>;
  private readonly injections: string[] = [];
  private running: AbortController | undefined;
  /** Settles when the queue has run dry; undefined while nothing runs. */
  private draining: Promise<void> | undefined;
  private saving: Promise<void> = Promise.resolve();
  private readonly watch = new ChangeWatch<Watched>(() => ({
    state: this.currentState,
    name: this.currentName,
  }));
  private readonly retry: RetryPolicy;
  private readonly safety: SafetyLimits;
  private readonly dispatch: DispatchOptions;
  private readonly compaction: CompactionOptions;
  private readonly meterOfContext = new ContextMeter();
  private autoCompactions = 0;

  private constructor(
    runtime: Runtime,
    private readonly options: AgentOptions,
  ) {
    this.rt = runtime;
    this.id = options.id ?? randomUUID();
    this.currentName = options.name ?? this.id;
    this.currentProfile = options.profile;
    this.cwd = options.cwd;
    this.sessionId = options.sessionId ?? newSessionId();
    this.hist = new History(options.history);
    this.meter = new UsageMeter(options.usage);
    this.task = options.taskState ?? emptyTaskState();
    this.queue = new BoundedQueue(options.maxQueue ?? 64);
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.safety = { ...DEFAULT_SAFETY_LIMITS, ...options.safety };
    this.dispatch = { ...DEFAULT_DISPATCH, ...options.dispatch };
    this.compaction = { ...DEFAULT_COMPACTION, ...options.compaction };
    if (options.onEvent) this.listeners.add(options.onEvent);
  }

  /**
   * Makes an agent: lists its tools, renders its preamble, and runs the agentSpawn hook — a block refuses the
   * agent (HookBlockedError); its output goes into the context.
   */
  static async create(options: AgentOptions): Promise<Agent> {
    const agent = new Agent(await buildRuntime(options), options);
    if (options.history === undefined) {
      const spawn = await agent.hook("agentSpawn", {});
      if (spawn.action === "block") throw new HookBlockedError("agentSpawn", spawn.output);
      if (spawn.output) agent.hist.append({ role: "user", content: hookNote("agentSpawn", spawn.output) });
    }
    return agent;
  }

  /**
   * Makes an agent that carries on a saved session: same ids, history, task state and usage. Tool calls
   * left without results are answered as interrupted (and the repaired session saved) first.
   */
  static async restore(session: PersistedSession, options: AgentOptions): Promise<Agent> {
    const history = new History(session.messages);
    const repaired = history.repairUnansweredCalls();
    const agent = await Agent.create({
      ...options,
      id: session.agentId,
      name: session.name,
      sessionId: session.id,
      history: history.messages,
      taskState: session.taskState,
      usage: session.usage,
      ...(session.agent !== undefined && { profile: session.agent }),
      ...(session.cwd !== undefined && { cwd: session.cwd }),
    });
    if (repaired > 0) await agent.persist();
    return agent;
  }

  get name(): string {
    return this.currentName;
  }

  set name(name: string) {
    this.currentName = name;
    this.watch.changed();
  }

  get profile(): string | undefined {
    return this.currentProfile;
  }

  get state(): AgentState {
    return this.currentState;
  }

  get history(): readonly Message[] {
    return this.hist.messages;
  }

  get taskState(): TaskState {
    return this.task;
  }

  get usage(): { turn: UsageTotals; session: UsageTotals; lastTurnCostUsd: number } {
    return {
      turn: { ...this.meter.turn },
      session: { ...this.meter.session },
      lastTurnCostUsd: this.meter.lastTurnCostUsd,
    };
  }

  /** The runtime in use: backend, tools, rendered preamble, parameters. */
  get runtime(): Runtime {
    return this.rt;
  }

  /** Prompts waiting behind the running turn, oldest first. */
  get queued(): string[] {
    return this.queue.toArray().map((q) => q.prompt);
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Submits a prompt. It runs now if the agent is idle, else after the turns ahead of it (`position` says
   * how many). Await the submission for the turn's outcome. Throws QueueFullError, and queues nothing, when
   * the queue is full. A queued prompt is never dropped: interrupting the running turn does not touch it.
   */
  submit(prompt: string): Submission {
    let settle!: (o: TurnOutcome) => void;
    const done = new Promise<TurnOutcome>((resolve) => {
      settle = resolve;
    });
    const position = this.queue.length + (this.running ? 1 : 0);
    if (!this.queue.push({ prompt, settle })) throw new QueueFullError(this.queue.capacity);
    this.draining ??= this.drain();
    return new Submission(position, done);
  }

  /**
   * Puts text in front of the model at the running turn's next step (after its current request or round
   * of calls). With no turn running, the text is submitted as a prompt instead.
   */
  inject(text: string): { injected: true } | Submission {
    if (!this.running) return this.submit(text);
    if (this.injections.length >= this.queue.capacity) throw new InjectionsFullError(this.queue.capacity);
    this.injections.push(text);
    return { injected: true };
  }

  /** Stops the running turn — its model request and its tool calls — with `cause`. False if none ran. */
  interrupt(cause = "interrupted"): boolean {
    if (!this.running || this.running.signal.aborted) return false;
    this.running.abort(new TurnInterruptedError(cause));
    return true;
  }

  /** Removes the waiting prompts and returns them; their submissions resolve as interrupted. */
  clearQueue(): string[] {
    return this.queue.drain().map((q) => {
      q.settle({ status: "interrupted", steps: 0, usage: emptyTotals() });
      return q.prompt;
    });
  }

  /**
   * Resolves with the field's value once it differs from `current` (at once if it already does); rejects
   * with the signal's reason if `signal` aborts first.
   */
  waitChange<K extends keyof Watched>(
    field: K,
    current: Watched[K],
    signal?: AbortSignal,
  ): Promise<Watched[K]> {
    return this.watch.wait(field, current, signal);
  }

  /**
   * Switches to another profile: its runtime is built with a fresh tool executor, the old executor is
   * closed, and the history and task state are cleared. Refused (AgentBusyError) while a turn runs.
   */
  async switchProfile(name: string): Promise<void> {
    if (this.draining) throw new AgentBusyError("switch profile");
    if (!this.options.profiles) throw new Error("this agent has no profile loader");
    const next = await buildRuntime(await this.options.profiles(name, this));
    const old = this.rt;
    this.rt = next;
    this.currentProfile = name;
    this.hist.clear();
    this.task = emptyTaskState();
    this.emit({ type: "info", message: `switched to profile ${name}` });
    if (old.tools !== next.tools) await old.tools.close?.();
    await this.persist();
  }

  /** The session as it would be saved now. */
  snapshot(): PersistedSession {
    return {
      version: 1,
      id: this.sessionId,
      agentId: this.id,
      name: this.currentName,
      ...(this.currentProfile !== undefined && { agent: this.currentProfile }),
      ...(this.cwd !== undefined && { cwd: this.cwd }),
      messages: [...this.hist.messages],
      taskState: { ...this.task, constraints: [...this.task.constraints] },
      usage: { ...this.meter.session },
      savedAt: new Date().toISOString(),
    };
  }

  /** Replaces the history; the next request is built from the new one. */
  replaceHistory(messages: readonly Message[]): void {
    this.hist.replace(messages);
    this.meterOfContext.reset();
  }

  /** How full the context is: the next request's size against the model's window (`ctxsz`). */
  async context(): Promise<ContextFigures> {
    return this.measure(
      this.rt.preamble
        ? [{ role: "system", content: this.rt.preamble }, ...this.hist.messages]
        : this.hist.messages,
      this.rt.toolSchemas,
    );
  }

  /**
   * Compacts the history now (the `compact` command), whatever its size; refused while a turn runs.
   * Resolves whether the history was replaced; a failure is an `error` event and the history stays.
   */
  async compact(signal: AbortSignal = new AbortController().signal): Promise<boolean> {
    if (this.draining) throw new AgentBusyError("compact");
    const done = await compactAgent(this.compactionHost(), "command", signal);
    if (done.compacted) await this.persist();
    return done.compacted;
  }

  private async contextLength(): Promise<number> {
    if (this.options.contextLength !== undefined) return this.options.contextLength;
    const said = await this.rt.backend.contextLength().catch(() => undefined);
    return said ?? this.compaction.fallbackContextLength;
  }

  private async measure(messages: readonly Message[], tools: readonly Tool[]): Promise<ContextFigures> {
    const { tokens, counted } = this.meterOfContext.measure(messages, tools);
    const contextLength = await this.contextLength();
    return { tokens, contextLength, fraction: tokens / contextLength, counted };
  }

  private compactionHost(): CompactionHost {
    const agent = this;
    return {
      sessionId: this.sessionId,
      history: this.hist,
      get taskState() {
        return agent.task;
      },
      set taskState(state: TaskState) {
        agent.task = state;
      },
      get runtime() {
        return agent.rt;
      },
      set runtime(runtime: Runtime) {
        agent.rt = runtime;
      },
      retry: this.retry,
      compaction: this.compaction,
      meter: this.meterOfContext,
      contextLength: () => this.contextLength(),
      hook: (event, extra, signal) => this.hook(event, extra, signal),
      emit: (event) => this.emit(event),
    };
  }

  /** Interrupts the running turn, clears the queue, saves the session a last time and closes the tools. */
  async close(): Promise<void> {
    this.clearQueue();
    this.interrupt("closed");
    await this.draining;
    await this.persist();
    await this.rt.tools.close?.();
  }

  /** Saves now (one save at a time); a failure becomes an `error` event. */
  persist(): Promise<void> {
    const save = this.options.persist;
    if (!save) return Promise.resolve();
    this.saving = this.saving.then(() =>
      save(this.snapshot()).catch((error: unknown) => {
        this.emit({
          type: "error",
          message: `the session could not be saved: ${(error as Error).message}`,
          error,
        });
      }),
    );
    return this.saving;
  }

  private emit(event: AgentEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the agent carries on.
      }
    }
  }

  private setState(state: AgentState): void {
    if (state === this.currentState) return;
    this.currentState = state;
    this.emit({ type: "state", state });
    this.watch.changed();
  }

  /** Runs the queued prompts in order, until none is left. */
  private async drain(): Promise<void> {
    // Let submit() return before the first turn starts.
    await Promise.resolve();
    try {
      for (;;) {
        // Text injected too late for the turn it was meant for is not lost: it runs as the next turn.
        if (this.injections.length > 0) {
          await this.runOne(this.injections.splice(0).join("\n\n"));
          continue;
        }
        const next = this.queue.shift();
        if (!next) break;
        next.settle(await this.runOne(next.prompt));
      }
    } finally {
      this.draining = undefined;
    }
  }

  /**
   * Runs a turn, then the postTurn hook. A block makes the turn go on, its output as the next prompt — at
   * most POST_TURN_BLOCKS times in a row; the payload says how many blocks came before.
   */
  private async runOne(prompt: string): Promise<TurnOutcome> {
    const controller = new AbortController();
    this.running = controller;
    // A prompt from the user: automatic compactions may start counting again.
    this.autoCompactions = 0;
    try {
      let outcome = await runTurn(this.turnContext(), prompt, controller.signal);
      for (let blocks = 0; this.rt.spec.hooks?.run && !controller.signal.aborted; blocks++) {
        const post = await this.hook(
          "postTurn",
          {
            status: outcome.status,
            steps: outcome.steps,
            reply: outcome.reply?.content ?? "",
            block_count: blocks,
            hook_active: blocks > 0,
          },
          controller.signal,
        );
        if (post.action !== "block") break;
        if (blocks >= POST_TURN_BLOCKS) {
          this.emit({
            type: "info",
            message: `the postTurn hook blocked ${blocks} times in a row; the turn ends anyway`,
          });
          break;
        }
        outcome = await runTurn(this.turnContext(), hookNote("postTurn", post.output), controller.signal);
      }
      return outcome;
    } finally {
      this.running = undefined;
    }
  }

  /** The fields every hook payload carries. */
  private hookPayload(event: string, extra: Record<string, unknown>): Record<string, unknown> {
    return {
      event,
      session_id: this.sessionId,
      agent_id: this.id,
      agent: this.currentName,
      profile: this.currentProfile,
      cwd: this.cwd,
      model: this.rt.backend.model,
      ...extra,
    };
  }

  /** Runs an event's hooks, reporting their warnings; no hooks means continue. */
  private async hook(
    event: HookEvent,
    extra: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<HookResult> {
    const run = this.rt.spec.hooks?.run;
    if (!run) return CONTINUE;
    const result = await run(event, this.hookPayload(event, extra), signal);
    for (const warning of result.warnings) this.emit({ type: "info", message: `warning: ${warning}` });
    return result;
  }

  private turnContext(): TurnContext {
    const agent = this;
    const { readPlanStep } = this.options;
    const hooks = this.rt.spec.hooks;
    return {
      runtime: () => agent.rt,
      refreshRuntime: async (signal) => {
        agent.rt = await refreshRuntime(agent.rt, signal);
      },
      history: this.hist,
      usage: this.meter,
      cwd: this.cwd,
      get taskState() {
        return agent.task;
      },
      set taskState(state: TaskState) {
        agent.task = state;
      },
      retry: this.retry,
      safety: this.safety,
      dispatch: this.dispatch,
      emit: (event) => this.emit(event),
      setState: (state) => this.setState(state),
      takeInjections: () => this.injections.splice(0),
      persist: () => this.persist(),
      ...(readPlanStep && { readPlanStep }),
      hook: (event, extra, signal) => this.hook(event, extra, signal),
      ...(hooks?.turnError && {
        turnError: (error: unknown, signal: AbortSignal) =>
          hooks.turnError!(this.hookPayload("turnError", errorFields(error)), signal),
      }),
      compaction: this.compaction,
      compact: (trigger, signal) => compactAgent(this.compactionHost(), trigger, signal),
      get autoCompactions() {
        return agent.autoCompactions;
      },
      set autoCompactions(n: number) {
        agent.autoCompactions = n;
      },
      measure: (messages, tools) => this.measure(messages, tools),
      counted: (messages, inputTokens) => this.meterOfContext.record(messages, inputTokens),
    };
  }
}

/** At most this many postTurn blocks in a row keep a turn going. */
const POST_TURN_BLOCKS = 3;

function errorFields(error: unknown): Record<string, unknown> {
  const e = error as {
    name?: string;
    message?: string;
    status?: number;
    provider?: string;
    retryAfterMs?: number;
  };
  return {
    error: e?.message ?? String(error),
    error_type: e?.name,
    status: e?.status,
    provider: e?.provider,
    retry_after_ms: e?.retryAfterMs,
  };
}
