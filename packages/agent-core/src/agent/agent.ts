import type { Message } from "@ollie/backends";
import type { SpanContext } from "@opentelemetry/api";
import type { ContextFigures } from "../context/context-meter.js";
import type { AgentListener, AgentState } from "../events/agent-events.js";
import type { TurnOutcome } from "../events/turn-outcome.js";
import { hookNote } from "../history/nudge.js";
import { emptyTaskState, type TaskState } from "../history/task-state.js";
import { emptyTotals, type UsageTotals } from "../history/usage-meter.js";
import type { PersistedSession } from "../persist/persisted-session.js";
import { repairSession } from "../persist/session-repair.js";
import { buildRuntime, type Runtime, type RuntimeSpec, requestMessages } from "../runtime/runtime.js";
import { INJECTED_TURN, invokeAgent, type TurnTrace, turnTraceOf } from "../telemetry/turn-span.js";
import { AgentCore, type LastingOptions, lasting, type Watched } from "./agent-core.js";
import type { AgentOptions } from "./agent-options.js";
import { BoundedQueue } from "./bounded-queue.js";
import {
  AgentBusyError,
  BudgetStopError,
  HookBlockedError,
  InjectionsFullError,
  QueueFullError,
  TurnInterruptedError,
} from "./errors.js";
import { Submission, setTurnSpan } from "./submission.js";
import type { SubmitOptions } from "./submit-options.js";
import { turnWithHooks } from "./turn-with-hooks.js";

/**
 * An agent: an identity, a conversation, and the runtime it answers with (backend, tools, preamble). Turns
 * run one at a time — prompts submitted meanwhile wait in a bounded queue, in order — and everything that
 * happens is reported to subscribers as events. Nothing here knows about 9P or processes: tools arrive
 * through a ToolExecutor, persistence through a callback.
 */
export class Agent {
  private readonly core: AgentCore;
  private running: AbortController | undefined;
  /** The running turn's recorded span (see runningTurnSpan). */
  private turnSpan: SpanContext | undefined;
  /** Settles when the queue has run dry; undefined while nothing runs. */
  private draining: Promise<void> | undefined;

  private constructor(runtime: Runtime, options: AgentOptions, kept: LastingOptions) {
    this.core = new AgentCore(runtime, options, kept);
  }

  /** How many prompts may wait (and how many texts may be injected and not yet taken). */
  private get capacity(): number {
    return this.core.options.maxQueue ?? DEFAULT_MAX_QUEUE;
  }

  /**
   * Makes an agent: lists its tools, renders its preamble, and runs the agentSpawn hook — a block refuses the
   * agent (HookBlockedError); its output goes into the context.
   */
  static async create(options: AgentOptions): Promise<Agent> {
    // One copy of the options serves the agent and its runtime's spec.
    const kept = lasting(options);
    const agent = new Agent(await buildRuntime(kept), options, kept);
    if (options.history === undefined) {
      const spawn = await agent.core.hook("agentSpawn", {});
      if (spawn.action === "block") throw new HookBlockedError("agentSpawn", spawn.output);
      if (spawn.output)
        agent.core.history.append({ role: "user", content: hookNote("agentSpawn", spawn.output) });
    }
    return agent;
  }

  /**
   * Makes an agent that carries on a saved session or a snapshot (with its journal applied, see
   * `replayJournal`): same ids, history, task state and usage, and no agentSpawn hook. What the process left
   * unfinished is repaired (see repairSession): a call without its result is answered as interrupted by a
   * restart, a turn cut off ends with INTERRUPTED_TURN; the repaired session is saved. Prompts that were
   * waiting are submitted again, in order. A snapshot of an idle agent (`snapshot()` after its turns ended,
   * as a program that closes idle agents keeps) has nothing to repair and nothing waiting: the agent comes
   * back as it was.
   */
  static async resume(saved: PersistedSession, options: AgentOptions): Promise<Agent> {
    const { session, added: repaired } = repairSession(saved);
    const { messages } = session;
    const agent = await Agent.create({
      ...options,
      id: session.agentId,
      name: session.name,
      sessionId: session.id,
      history: messages,
      taskState: session.taskState,
      usage: session.usage,
      ...(session.compactionUsage !== undefined && { compactionUsage: session.compactionUsage }),
      ...(session.agent !== undefined && { profile: session.agent }),
      ...(session.cwd !== undefined && { cwd: session.cwd }),
    });
    agent.core.historyId = session.historyId;
    if (repaired > 0) await agent.persist();
    for (const prompt of session.queued ?? []) void agent.submit(prompt);
    return agent;
  }

  get id(): string {
    return this.core.id;
  }

  get sessionId(): string {
    return this.core.sessionId;
  }

  get cwd(): string | undefined {
    return this.core.cwd;
  }

  get name(): string {
    return this.core.name;
  }

  set name(name: string) {
    this.core.name = name;
    this.core.changed();
  }

  get profile(): string | undefined {
    return this.core.profile;
  }

  get state(): AgentState {
    return this.core.state;
  }

  /**
   * Whether anything runs or waits to: a turn (its hooks included, postTurn's too), a prompt queued behind
   * it, a compaction, a hook or prompt commands. False only when the agent can be closed without cutting
   * anything short.
   */
  get busy(): boolean {
    return this.draining !== undefined || this.core.state !== "idle" || this.core.injected > 0;
  }

  /**
   * The span context of the turn running now, when it is recorded: for a host to tell whether a trace
   * context it was handed (a spawned session's `traceparent`) belongs to this agent's turn.
   */
  get runningTurnSpan(): SpanContext | undefined {
    return this.turnSpan;
  }

  get history(): readonly Message[] {
    return this.core.history.messages;
  }

  get taskState(): TaskState {
    return this.core.taskState;
  }

  /**
   * Tokens, requests and cost: of the running (or last) turn, of the session, and — `compaction` — what the
   * session's compaction summaries used, with the compaction model (a part of `session`, and of `turn` for a
   * compaction made during it).
   */
  get usage(): {
    turn: UsageTotals;
    session: UsageTotals;
    lastTurnCostUsd: number;
    compaction: UsageTotals;
  } {
    const meter = this.core.usage;
    return {
      turn: { ...meter.turn },
      session: { ...meter.session },
      lastTurnCostUsd: meter.lastTurnCostUsd,
      compaction: { ...meter.compaction },
    };
  }

  /** The runtime in use: backend, tools, rendered preamble, parameters. */
  get runtime(): Runtime {
    return this.core.runtime;
  }

  /** Prompts waiting behind the running turn, oldest first. */
  get queued(): string[] {
    return this.core.queuedPrompts();
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: AgentListener): () => void {
    return this.core.subscribe(listener);
  }

  /**
   * Submits a prompt. It runs now if the agent is idle, else after the turns ahead of it (`position` says
   * how many). Await the submission for the turn's outcome. Throws QueueFullError, and queues nothing, when
   * the queue is full. A queued prompt is never dropped: interrupting the running turn does not touch it.
   * The turn's span is a child of `options.parent` (the context active now by default), linked to
   * `options.links`.
   */
  submit(prompt: string, options?: SubmitOptions): Submission {
    let settle!: (o: TurnOutcome) => void;
    const done = new Promise<TurnOutcome>((resolve) => {
      settle = resolve;
    });
    this.core.queue ??= new BoundedQueue(this.capacity);
    const queue = this.core.queue;
    const position = queue.length + (this.running ? 1 : 0);
    const submission = new Submission(position, done);
    const trace: TurnTrace = {
      ...turnTraceOf(options),
      started: (span) => {
        setTurnSpan(submission, span);
        this.turnSpan = span;
      },
    };
    if (!queue.push({ prompt, settle, trace })) throw new QueueFullError(queue.capacity);
    this.draining ??= this.drain();
    return submission;
  }

  /**
   * Puts text in front of the model at the running turn's next step (after its current request or round
   * of calls), after any text injected before it and not yet taken. With no turn running, the text is
   * submitted as a prompt instead. Throws InjectionsFullError when `maxQueue` texts are already waiting.
   */
  inject(text: string): { injected: true } | Submission {
    if (!this.running) return this.submit(text);
    const waiting = this.core.injections;
    if (waiting.length >= this.capacity) throw new InjectionsFullError(this.capacity);
    waiting.push(text);
    return { injected: true };
  }

  /**
   * Like `inject`, but rewrites what is pending rather than adding to it: the text replaces whatever was
   * injected and not yet taken by the running turn (`replaced`, oldest first, is dropped: the model never
   * sees it). Text the turn has already taken stays where it is. With no turn running (and nothing
   * pending), the text is submitted as a prompt instead.
   */
  injectRewrite(text: string): { injected: true; replaced: string[] } | Submission {
    if (!this.running && this.core.injected === 0) return this.submit(text);
    const waiting = this.core.injections;
    const replaced = waiting.splice(0, waiting.length, text);
    return { injected: true, replaced };
  }

  /** Stops the running turn — its model request and its tool calls — with `cause`. False if none ran. */
  interrupt(cause = "interrupted"): boolean {
    if (!this.running || this.running.signal.aborted) return false;
    this.running.abort(new TurnInterruptedError(cause));
    return true;
  }

  /**
   * Stops the running turn — its model request and its tool calls — because a budget it is charged to is
   * spent (`reason` says which): the turn ends in `budget` rather than `interrupted`, what the cut request
   * used counted. False if none ran.
   */
  stopForBudget(reason: string): boolean {
    if (!this.running || this.running.signal.aborted) return false;
    this.running.abort(new BudgetStopError(reason));
    return true;
  }

  /** Removes the waiting prompts and returns them; their submissions resolve as interrupted. */
  clearQueue(): string[] {
    return (this.core.queue?.drain() ?? []).map((q) => {
      q.settle({ status: "interrupted", steps: 0, usage: emptyTotals(), partial: "" });
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
    return this.core.watch.wait(field, current, signal);
  }

  /**
   * Switches to another profile: its runtime is built with a fresh tool executor, the old executor is
   * closed, and the history and task state are cleared. Refused (AgentBusyError) while a turn runs.
   */
  async switchProfile(name: string): Promise<void> {
    if (this.draining) throw new AgentBusyError("switch profile");
    const profiles = this.core.options.profiles;
    if (!profiles) throw new Error("this agent has no profile loader");
    const next = await buildRuntime(await profiles(name, this));
    const core = this.core;
    const old = core.runtime;
    core.runtime = next;
    core.profile = name;
    core.replaceHistory([]);
    core.taskState = emptyTaskState();
    core.emit({ type: "info", message: `switched to profile ${name}` });
    if (old.tools !== next.tools) await old.tools.close?.();
    await this.persist();
  }

  /**
   * Rebuilds the runtime with some of its spec changed — another backend, prompt, parameters, tools. A
   * running turn picks it up at its next request; the history stays.
   */
  async updateRuntime(changes: Partial<RuntimeSpec>): Promise<void> {
    this.core.runtime = await buildRuntime({ ...this.core.runtime.spec, ...changes });
  }

  /** The session as it would be saved now (with the results of the running round that have come in). */
  snapshot(): PersistedSession {
    return this.core.snapshot();
  }

  /** Replaces the history; the next request is built from the new one. */
  replaceHistory(messages: readonly Message[]): void {
    this.core.replaceHistory(messages);
  }

  /** How full the context is: the next request's size against the model's window (`ctxsz`). */
  async context(): Promise<ContextFigures> {
    const { preamble, toolSchemas } = this.core.runtime;
    return this.core.measure(requestMessages(preamble, this.core.history.messages), toolSchemas);
  }

  /**
   * Compacts the history now (the `compact` command), whatever its size; refused while a turn runs.
   * Resolves whether the history was replaced; a failure is an `error` event and the history stays.
   */
  async compact(signal: AbortSignal = new AbortController().signal): Promise<boolean> {
    if (this.draining) throw new AgentBusyError("compact");
    const done = await this.core.compact("command", signal);
    if (done.compacted) await this.persist();
    return done.compacted;
  }

  /**
   * Interrupts the running turn, takes the waiting prompts off the queue (their submissions resolve as
   * interrupted; the last save keeps them, for a restored agent to run), saves the session a last time and
   * closes the tools. A turn it interrupts is saved as cut off (`turnRunning`): a restored agent says so.
   */
  async close(): Promise<void> {
    const unrun = this.clearQueue();
    if (unrun.length > 0) this.core.unrun = unrun;
    // A turn already being interrupted (by whoever is closing the agent) is cut off as well.
    const cut = this.running !== undefined;
    this.interrupt("closed");
    await this.draining;
    if (cut) this.core.turnRunning = true;
    await this.persist();
    await this.core.runtime.tools.close?.();
  }

  /** Saves now (one save at a time); a failure becomes an `error` event. */
  persist(): Promise<void> {
    return this.core.persist();
  }

  /** Runs the queued prompts in order, until none is left. */
  private async drain(): Promise<void> {
    // Let submit() return before the first turn starts.
    await Promise.resolve();
    try {
      for (;;) {
        // Text injected too late for the turn it was meant for is not lost: it runs as the next turn.
        if (this.core.injected > 0) {
          await this.runOne(this.core.takeInjections().join("\n\n"), INJECTED_TURN);
          continue;
        }
        const next = this.core.queue?.shift();
        if (!next) break;
        next.settle(await this.runOne(next.prompt, next.trace));
      }
    } finally {
      this.draining = undefined;
      // An idle agent keeps no queue: the next submit makes one.
      if (this.core.queue?.length === 0) this.core.queue = undefined;
    }
  }

  /** Runs a prompt's turn (and its continuations) in its `invoke_agent` span, under `where`. */
  private async runOne(prompt: string, where: TurnTrace): Promise<TurnOutcome> {
    const controller = new AbortController();
    const core = this.core;
    this.running = controller;
    // A prompt from the user: automatic compactions may start counting again.
    core.autoCompactions = 0;
    try {
      return await invokeAgent(core, where, (seen) => turnWithHooks(core, prompt, controller.signal, seen));
    } finally {
      this.running = undefined;
      this.turnSpan = undefined;
    }
  }
}

/** Prompts that may wait behind the running turn when `maxQueue` is not given. */
const DEFAULT_MAX_QUEUE = 64;
