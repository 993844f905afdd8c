import type { SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import { callingTools, type EventStream, type Session, type TurnRecord } from "@ollie/client";
import { planEntries } from "./plan-entries.js";
import type { ToolTracker } from "./tool-tracker.js";

/** A turn that ended in a failure: session/prompt answers it with a JSON-RPC error carrying its message. */
export class TurnFailedError extends Error {
  override readonly name = "TurnFailedError";
}

/** What a prompt's turn is given: where its updates go, and the tool calls of its session. */
export interface PromptTurnOptions {
  send: (update: SessionUpdate) => Promise<void>;
  tools: ToolTracker;
}

/** The events of the session a prompt follows: the main agent's, and the plan's changes. */
const TOPICS = [
  "agent.main.assistant",
  "agent.main.reasoning",
  "agent.main.call",
  "agent.main.tool",
  "agent.main.state",
  "agent.main.turn",
  "session.plan",
];

/**
 * The stop reason of a turn, as its `turn` event tells it: the model's answer (`end_turn`), cut by the
 * output limit (`max_tokens`) or refused by a filter or the model (`refusal`), the step limit
 * (`max_turn_requests`), stopped (`cancelled`), or a preTurn hook's refusal (`refusal`). A failure throws.
 */
export function stopReasonOf(record: TurnRecord): StopReason {
  switch (record.status) {
    case "interrupted":
      return "cancelled";
    case "maxsteps":
      return "max_turn_requests";
    case "blocked":
      return "refusal";
    // The spending limit (tokens, or what they cost) ended it: the protocol's nearest word.
    case "budget":
      return "max_tokens";
    case "error":
      throw new TurnFailedError(`the turn failed: ${record.error ?? "no reason given"}`);
    default:
      if (record.stop?.reason === "length") return "max_tokens";
      if (record.stop?.reason === "refusal" || record.stop?.reason === "content_filter") return "refusal";
      return "end_turn";
  }
}

/**
 * One session/prompt: the prompt is written to the session's main agent once it is idle, its turn's events
 * become session/update notifications as they come, and the stop reason is resolved once the turn's last
 * event has been sent. `cancel()` stops the turn (at once if it runs, else as soon as it is taken).
 */
export class PromptTurn {
  private taken = false;
  private cancelWanted = false;
  /** The stop found the turn running: it is ending. */
  private stopped = false;

  constructor(
    private readonly session: Session,
    private readonly options: PromptTurnOptions,
  ) {}

  async run(text: string, signal: AbortSignal): Promise<StopReason> {
    const agent = this.session.agent();
    await agent.waitState({ until: "idle", signal });
    const events = await this.session.events({ topics: TOPICS, signal });
    try {
      const following = this.follow(events);
      following.catch(() => {});
      await agent.prompt(text, { signal });
      this.taken = true;
      if (this.cancelWanted) await this.stop();
      return stopReasonOf(await following);
    } finally {
      await events.close().catch(() => {});
    }
  }

  /** session/cancel: the turn is stopped, and the prompt answers `cancelled` once it has ended. */
  async cancel(): Promise<void> {
    this.cancelWanted = true;
    if (this.taken) await this.stop();
  }

  /** A stop before the turn began finds nothing to stop: it is tried again at the turn's next event. */
  private async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = await this.session.agent().stop();
  }

  private async follow(events: EventStream): Promise<TurnRecord> {
    const { send, tools } = this.options;
    for await (const e of events) {
      if (this.cancelWanted && this.taken) await this.stop();
      if (e.kind === "session" && e.type === "plan") {
        await send({ sessionUpdate: "plan", entries: planEntries(e.plan) });
        continue;
      }
      if (e.kind !== "agent") continue;
      switch (e.type) {
        case "turn":
          return e.outcome;
        case "assistant":
          await send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: e.delta } });
          break;
        case "reasoning":
          await send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: e.delta } });
          break;
        case "call":
          await send(tools.asked(e.call));
          break;
        case "state":
          for (const update of tools.running(callingTools(e.state))) await send(update);
          break;
        case "tool":
          await send(tools.finished(e.call, e.result));
          break;
      }
    }
    throw new TurnFailedError("the session ended before the turn did");
  }
}
