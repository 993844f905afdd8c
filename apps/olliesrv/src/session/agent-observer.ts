import { resolve } from "node:path";
import type { Agent, AgentEvent, AgentState, PersistedSession, UsageTotals } from "@ollie/agent-core";
import type { ToolsrvConn } from "@ollie/toolsrv/client";
import { AppendBuffer, WatchedValue } from "@ollie/virtfs";
import { Activity } from "./activity.js";
import { artifactOf } from "./callback.js";
import { ChatLog } from "./chat-log.js";
import { publishAgentEvent } from "./event-bus.js";
import { outcomeText } from "./prompt-tickets.js";
import type { SavedAgent } from "./session-file.js";
import type { SlotSession } from "./slot-context.js";
import { ToolProcs } from "./tool-procs.js";
import { type WaitingPrompt, WaitingPrompts } from "./waiting-prompts.js";

/** Tokens and cost as the `usage` and `cost` files show them (a paused agent's may be unknown). */
export interface ShownUsage {
  turn: UsageTotals | undefined;
  session: UsageTotals | undefined;
  compaction: UsageTotals | undefined;
  lastTurnCostUsd: number;
}

/** How the slot acts on what its agent does. */
export interface ObserverReactions {
  /** Nothing runs any more: a turn (or a compaction from ctl) ended. */
  idle(): void;
  /** Something started. */
  busy(): void;
  /** A note for the chat when a turn gave up on `error`, if its backend is unreachable (see unreachableNote). */
  unreachable(error: unknown): string | undefined;
}

/**
 * What an agent's files show of it, kept up to date from its events: its chat, activity, tool processes,
 * streamed replies, state, turn count and last outcome, the session's `events`, the agent-to-agent hops
 * behind its turn, and the files its turns wrote. It outlives the live agent: a parked or paused agent's
 * files keep showing what it last did.
 */
export class AgentObserver {
  readonly chat = new ChatLog();
  /** What the agent is doing now: its `activity` file. */
  readonly activity = new Activity();
  /** Its tool processes at toolsrv, as last asked for: the `proc/` directory. */
  readonly procs: ToolProcs;
  /** The model's text alone, a newline after each turn: what fifo.out streams to programs. */
  readonly replies = new AppendBuffer({ retain: 1024 * 1024 });
  readonly state = new WatchedValue<string>("idle");
  /** Turns finished so far, restarts included; a read of `turnwait` returns when it moves. */
  readonly turns: WatchedValue<number>;
  /** The prompts waiting behind the running turn: the `queue` file, and `agent.NAME.queue` when it moves. */
  readonly waiting: WaitingPrompts;
  #lastOutcome: string;
  /** Agent-to-agent hops behind the turn running now (or last): 0 when a person prompted it. */
  #turnHops = 0;
  /** The hops of prompts submitted and not yet begun, in order. */
  readonly #queuedHops: number[] = [];
  /** Files the running turn's tools wrote, and those of the last finished turn. */
  #artifacts = new Set<string>();
  #lastArtifacts: string[] = [];
  /** The last turn's usage and cost as a parked agent had them, shown until the next turn starts. */
  #lastTurn: { usage: UsageTotals; costUsd: number } | undefined;

  constructor(
    private readonly session: SlotSession,
    private readonly name: string,
    toolsrv: () => ToolsrvConn | undefined,
    private readonly reactions: ObserverReactions,
    saved?: SavedAgent,
  ) {
    this.procs = new ToolProcs(toolsrv, (running) =>
      session.events.publish(`agent.${name}.procs`, { running }),
    );
    this.turns = new WatchedValue(saved?.turns?.count ?? 0);
    this.#lastOutcome = saved?.turns?.last ?? "";
    this.waiting = new WaitingPrompts(
      (waiting) => session.events.publish(`agent.${name}.queue`, { waiting }),
      saved?.session?.queued,
    );
    if (saved?.session) this.chat.replay(saved.session.messages);
    this.chat.onNote = (text) => session.events.publish(`agent.${name}.note`, { text });
  }

  /** How the last turn ended: `done`, `interrupted`, `maxsteps`, `blocked`, `handled`, `budget` or `error: …`. */
  get lastOutcome(): string {
    return this.#lastOutcome;
  }

  /** Agent-to-agent hops behind the turn running now (or last): 0 when a person prompted it. */
  get turnHops(): number {
    return this.#turnHops;
  }

  /** The files the last finished turn's tools wrote. */
  get lastArtifacts(): readonly string[] {
    return this.#lastArtifacts;
  }

  /**
   * A prompt `hops` away from a person was queued, `position` turns ahead of it: its turn is that far when
   * it begins, and it waits (in the `queue` file) if a turn is ahead of it.
   */
  queued(hops: number, position: number, prompt: WaitingPrompt): void {
    this.#queuedHops.push(hops);
    this.waiting.submitted(position, prompt);
  }

  /** Text `hops` away from a person joined the running turn, which is now at least that far. */
  joined(hops: number): void {
    this.#turnHops = Math.max(this.#turnHops, hops);
  }

  /** Shows `state` for something the slot runs before there is an agent to say so (its prompt commands). */
  show(state: AgentState): void {
    const e: AgentEvent = { type: "state", state };
    this.activity.event(e);
    publishAgentEvent(this.session.events, this.name, e);
    this.state.set(state);
    this.session.stirred();
  }

  /**
   * Shows the last turn's usage of an agent parked with `usage` until the next turn starts; undefined: there
   * is no last turn to show (the history was dropped).
   */
  keepLastTurn(usage: Agent["usage"] | undefined): void {
    this.#lastTurn = usage && { usage: usage.turn, costUsd: usage.lastTurnCostUsd };
  }

  /**
   * Tokens and cost, as the `usage` and `cost` files show them: the live agent's (`live`); for a paused one
   * the session's as last saved. The last turn's of a parked agent are shown until the next turn starts.
   */
  usage(live: Agent["usage"] | undefined, saved: PersistedSession | undefined): ShownUsage {
    const last = this.#lastTurn;
    if (live) return last ? { ...live, turn: last.usage, lastTurnCostUsd: last.costUsd } : live;
    return {
      turn: last?.usage,
      session: saved?.usage,
      compaction: saved?.compactionUsage,
      lastTurnCostUsd: last?.costUsd ?? 0,
    };
  }

  /** The turn count and last outcome, as the session file keeps them. */
  toSaved(): Pick<SavedAgent, "turns"> {
    const count = this.turns.get();
    return count > 0 ? { turns: { count, ...(this.#lastOutcome && { last: this.#lastOutcome }) } } : {};
  }

  /** Ends what readers block on, for good (see AgentSlot.end). */
  end(reason: Error): void {
    this.waiting.end();
    this.state.close(reason);
    this.turns.close(reason);
    this.replies.close(reason);
    this.chat.stream.close(reason);
  }

  /** Takes one of the agent's events into every file that shows it. */
  event(e: AgentEvent): void {
    // Said when the turn gives up, not at a failed attempt that a retry may yet make good.
    if (e.type === "turn" && e.outcome.status === "error") {
      const note = this.reactions.unreachable(e.outcome.error);
      if (note) this.chat.note(note);
    }
    this.chat.event(e);
    this.activity.event(e);
    this.procs.event(e);
    publishAgentEvent(this.session.events, this.name, e);
    if (this.replies.closed) return;
    switch (e.type) {
      case "user":
        if (e.from === "user") this.#turnHops = this.#queuedHops.shift() ?? 0;
        break;
      case "assistant":
        this.replies.append(e.delta);
        break;
      case "state":
        this.state.set(e.state);
        this.session.stirred();
        if (e.state === "idle") this.reactions.idle();
        else {
          this.#lastTurn = undefined;
          this.reactions.busy();
        }
        break;
      case "call": {
        const path = artifactOf(e.call.name, e.call.arguments);
        if (path !== undefined) this.#artifacts.add(resolve(this.session.cwd, path));
        break;
      }
      case "turn":
        this.replies.append("\n");
        this.#lastArtifacts = [...this.#artifacts];
        this.#artifacts.clear();
        this.#lastOutcome = outcomeText(e.outcome);
        this.turns.set(this.turns.get() + 1);
        // The agent saved the turn before it said it ended: the count and outcome go to disk now. A failed
        // save is the agent's own saves' to report, and the next one carries them.
        void this.session.save().catch(() => undefined);
        break;
    }
  }
}
