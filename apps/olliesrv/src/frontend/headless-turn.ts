import {
  type AgentEventBody,
  type EventStream,
  isSessionId,
  type OllieClient,
  type PendingBypass,
  type RunApprovals,
  type RunEvent,
  type RunStatus,
  type Session,
  type TurnEnd,
  type TurnRecord,
} from "@ollie/client";
import { dollars } from "../dollars.js";
import { type ApprovalGuard, denyApprovals } from "./approval-guard.js";
import { askTurn } from "./ask-turn.js";
import { runEventOf } from "./run-events.js";

/** What a headless turn is given. */
export interface HeadlessOptions {
  /** An approval is denied at once; with `fail` the run ends there too. */
  approve: RunApprovals;
  /** Ends the turn once what it cost passes this many US dollars. */
  maxCostUsd?: number | undefined;
  /** Each event of the run, as `ollie run --json` prints it, as it comes. */
  emit: (event: RunEvent) => void;
  /** The turn's chat as it streams, as `ollie ask` shows it (for the text mode): none, and it is not read. */
  show?: ((text: string) => void) | undefined;
  /** ollie's own words (an approval it cannot deny, events it lost): by default `notice` lines. */
  say?: ((line: string) => void) | undefined;
  /** Stops the following (the turn goes on at the daemon): the run then rejects with its reason. */
  signal: AbortSignal;
  /** Told once the agent has taken the prompt. */
  submitted?: () => void;
}

/** How a headless turn ended. */
export interface HeadlessEnd {
  /** The turn's status, or why the run ended it (`maxcost`, `approval`). */
  status: RunStatus;
  /** How the prompt's turn ended, and the model's last reply in it. */
  turn: TurnEnd;
  /** Its steps and usage, from its `turn` event; undefined when the session ended before it came. */
  record: TurnRecord | undefined;
  /** Why the run ended the turn itself. */
  reason?: string;
}

/** What the agent of a run is told when it asks for an approval. */
export const denialReason = (approve: RunApprovals) =>
  `ollie run: non-interactive, approvals are denied (--approve ${approve})`;

/** The events a run follows: those it prints, `state` (a turn under way can be stopped), and the turn's end. */
const FOLLOWED: AgentEventBody["type"][] = [
  "assistant",
  "reasoning",
  "discard",
  "call",
  "tool",
  "usage",
  "error",
  "retry",
  "limitretry",
  "maxsteps",
  "stopreason",
  "info",
  "note",
  "state",
  "turn",
];

/** The sessions a spawn tool's result names: `spawned session ID`. */
const SPAWNED = /spawned session (\S+)/g;

/**
 * One prompt's turn run with nobody to ask (`ollie run`): its events are handed on as the run's lines, an
 * approval any of its agents asks for is denied at once, and the turn is stopped when its cost passes the
 * cap or, with `--approve fail`, at the first approval. The session's main agent must be idle when this is
 * called — the next turn it runs is the prompt's (a run continuing a session waits for it to be idle
 * first) — so the events followed are those from the subscription to the next `turn` event.
 */
export class HeadlessTurn {
  /** The sessions whose agents are the run's: its own, and those its agent spawned in the turn. */
  private readonly sessions: Set<string>;
  private ending: { status: "maxcost" | "approval"; reason: string } | undefined;
  /** A stop was asked for and has not yet found the turn running. */
  private stopWanted = false;
  private taken = false;
  private guard: ApprovalGuard | undefined;

  constructor(
    private readonly client: OllieClient,
    private readonly session: Session,
    private readonly options: HeadlessOptions,
  ) {
    this.sessions = new Set([session.id]);
  }

  /** Stops the turn (Ctrl-C): now if it runs, else as soon as it is seen running. */
  async stop(): Promise<void> {
    this.stopWanted = true;
    await this.tryStop();
  }

  async run(text: string): Promise<HeadlessEnd> {
    const { options } = this;
    const agent = this.session.agent();
    await agent.waitState({ until: "idle", signal: options.signal });
    const unfollow = new AbortController();
    const signal = AbortSignal.any([options.signal, unfollow.signal]);
    const events = await agent.events({ types: FOLLOWED, signal });
    try {
      await this.guardApprovals();
      const following = this.follow(events);
      // A following that fails (the connection went) fails the run; the ask's own failure goes first.
      following.catch(() => {});
      let turn: TurnEnd;
      try {
        turn = await this.ask(text);
      } catch (error) {
        unfollow.abort();
        throw error;
      }
      const record = await following;
      const status = this.ending?.status ?? turn.outcome.status;
      return { status, turn, record, ...(this.ending && { reason: this.ending.reason }) };
    } finally {
      unfollow.abort();
      await this.guard?.stop();
      // Closed already when the iteration ended; a connection gone leaves nothing to close.
      await events.close().catch(() => {});
    }
  }

  private async ask(text: string): Promise<TurnEnd> {
    const { options } = this;
    const agent = this.session.agent();
    const submitted = () => {
      this.taken = true;
      options.submitted?.();
      if (this.stopWanted) void this.quietStop();
    };
    if (options.show) return askTurn(agent, text, options.show, { signal: options.signal, submitted });
    const prompt = await agent.prompt(text, { signal: options.signal });
    submitted();
    return prompt.ended;
  }

  /** Hands on the turn's events until its `turn` event, whose record it resolves with. */
  private async follow(events: EventStream): Promise<TurnRecord | undefined> {
    const { emit, maxCostUsd } = this.options;
    for await (const e of events) {
      if (e.kind === "dropped") this.say(`${e.count} events were lost: ollie fell behind`);
      if (e.kind !== "agent") continue;
      if (this.stopWanted) await this.quietStop();
      if (e.type === "turn") return e.outcome;
      if (e.type === "tool") this.spawned(e.result.content);
      if (e.type === "usage" && maxCostUsd !== undefined && e.turn.costUsd > maxCostUsd)
        this.end(
          "maxcost",
          `the run has cost ${dollars(e.turn.costUsd)}, past --max-cost ${dollars(maxCostUsd)}`,
        );
      const line = runEventOf(e);
      if (line) emit(line);
    }
    return undefined;
  }

  /** Ends the turn for `reason`: the run ends with `status`, whatever the turn's own. */
  private end(status: "maxcost" | "approval", reason: string): void {
    if (this.ending) return;
    this.ending = { status, reason };
    this.stopWanted = true;
    void this.quietStop();
  }

  /** Stops the turn once it runs: a stop before it began finds nothing, and is tried again at its next event. */
  private async tryStop(): Promise<void> {
    if (!this.stopWanted || !this.taken) return;
    if (await this.session.agent().stop()) this.stopWanted = false;
  }

  /** tryStop for the run's own stops: one that fails (the connection went) is tried again, or the run fails. */
  private quietStop(): Promise<void> {
    return this.tryStop().catch(() => {});
  }

  private async guardApprovals(): Promise<void> {
    const { approve, emit } = this.options;
    const reason = denialReason(approve);
    const denied = (r: PendingBypass) => {
      emit({
        type: "approval",
        request: r.number,
        agent: r.agent,
        operation: r.operation,
        command: r.command,
        reason: r.reason,
        decision: "denied",
        message: reason,
      });
      if (approve === "fail")
        this.end(
          "approval",
          `${r.agent} asked for an approval (bypass request ${r.number}), with --approve fail`,
        );
    };
    const ours = (agent: string) => this.sessions.has(agent.split(".")[0]!);
    this.guard = await denyApprovals(this.client, ours, reason, denied).catch((error: unknown) => {
      this.say(`approvals cannot be denied: ${(error as Error).message}`);
      return undefined;
    });
  }

  private say(message: string): void {
    if (this.options.say) this.options.say(message);
    else this.options.emit({ type: "notice", message });
  }

  /** A spawn tool's result: the sessions it names are the run's too, and their requests are looked at again. */
  private spawned(output: string): void {
    const ids = [...output.matchAll(SPAWNED)].map((m) => m[1]!).filter(isSessionId);
    if (ids.length === 0) return;
    for (const id of ids) this.sessions.add(id);
    this.guard?.recheck();
  }
}
