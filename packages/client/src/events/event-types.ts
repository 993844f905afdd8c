import type { AgentState } from "../formats/agent-state.js";
import type { TurnStatus } from "../formats/outcome.js";
import type { UsageTotals } from "../formats/usage.js";

/**
 * The records of a session's `events` file (see olliesrv's NAMESPACE.md, "Events"), parsed. Narrow on
 * `kind`, then on `type`: `kind: "agent"` records are an agent's events (`agent.NAME.TYPE`), `kind:
 * "session"` the session's own (`session.TYPE`), `kind: "dropped"` says this reader fell behind, and `kind:
 * "other"` carries a topic this client does not know yet (a later olliesrv's), its fields as they came.
 */
export type OllieEvent = AgentEventRecord | SessionEventRecord | EventsDropped | OtherEvent;

/** What every counted event has. */
export interface EventStamp {
  /** As the file has it: `agent.main.state`, `session.rename`. */
  topic: string;
  /** The session's events counted from its start in this olliesrv. */
  seq: number;
  /** When it happened (ISO). */
  time: string;
}

/** A tool call as the model made it. */
export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A tool call's result. */
export interface ToolResultRecord {
  toolCallId: string;
  name: string;
  content: string;
  isError?: boolean;
}

/** What one model request used. `inputTokens` counts every prompt token, cached or not. */
export interface RequestUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheCreationTokens: number;
  reasoningTokens?: number;
  /** The provider did not count the prompt: `inputTokens` is an estimate. */
  inputEstimated?: boolean;
  /** The request was cut off before the provider counted it: `outputTokens` is an estimate. */
  outputEstimated?: boolean;
  costUsd?: number;
}

/** How a turn ended, as its `turn` event tells it. */
export interface TurnRecord {
  status: TurnStatus;
  /** Rounds of tool calls made. */
  steps: number;
  /** The model's last complete reply, when there was one. */
  reply?: { content: string; toolCalls?: ToolCallRecord[] };
  /** What went wrong (its message), for `error` and `handled`. */
  error?: string;
  /** For `interrupted`: the text of the reply the interrupt cut short ("" when none was). */
  partial?: string;
  /** For `maxsteps`: the step limit reached. */
  maxSteps?: number;
  /** For `blocked`: why the preTurn hook refused the turn; for `budget`, why the budget refused a request. */
  reason?: string;
  usage: UsageTotals;
  /** How the last reply ended, when not normally (the output limit, a filter, a refusal…). */
  stop?: { reason: string; raw?: string; message: string };
}

/** The events of an agent (`agent.NAME.TYPE`), by `type`: @ollie/agent-core's events, and olliesrv's notes. */
export type AgentEventBody =
  /** A prompt, an injection or a nudge of the loop's own entered the history. */
  | { type: "user"; text: string; from: "user" | "inject" | "ollie" }
  /** The model's text, or its reasoning, as it streams. */
  | { type: "assistant" | "reasoning"; delta: string }
  | { type: "call"; call: ToolCallRecord }
  | { type: "tool"; call: ToolCallRecord; result: ToolResultRecord }
  | {
      type: "usage";
      request: RequestUsage;
      costUsd: number;
      turn: UsageTotals;
      session: UsageTotals;
      /** For a compaction summary's request: the model that wrote it, and the compaction totals so far. */
      model?: string;
      compaction?: UsageTotals;
    }
  | { type: "state"; state: AgentState }
  /** A failed request (`retry`) or a rate limit (`limitretry`) is tried again after `delayMs`. */
  | {
      type: "retry" | "limitretry";
      attempt: number;
      maxAttempts: number;
      delayMs: number;
      message: string;
    }
  | { type: "maxsteps"; steps: number }
  | {
      type: "compaction";
      trigger: "threshold" | "overflow" | "command";
      tokensBefore: number;
      tokensAfter: number;
      dropped: number;
      snapshot?: string;
      model?: string;
    }
  | { type: "error" | "info"; message: string }
  /** A reply ended short; `message` says how and what to do next. */
  | { type: "stopreason"; reason: string; raw?: string; message: string }
  /** A retried reply differs from the partial one streamed before it, which is void. */
  | { type: "discard"; partial: string }
  | { type: "turn"; outcome: TurnRecord }
  /** A line olliesrv wrote in the agent's chat itself (a changed backends.conf, a fork, a bypass request). */
  | { type: "note"; text: string }
  /** The prompts waiting behind its turn changed (one queued, taken into a turn, or dropped): `waiting` now. */
  | { type: "queue"; waiting: number }
  /**
   * Its tool processes changed (one started, ended or went), as olliesrv saw while someone looked at them
   * (its `proc/` directory, or `Agent.processes()`): `running` now.
   */
  | { type: "procs"; running: number };

/** An agent's event: which agent, and its body. */
export type AgentEventRecord = EventStamp & { kind: "agent"; agent: string } & AgentEventBody;

/** The session's own events (`session.TYPE`), by `type`. */
export type SessionEventBody =
  | { type: "rename"; name: string }
  | { type: "cd"; cwd: string }
  /** Its tools moved to `remote` (`[user@]host`), or back to this machine (empty). */
  | { type: "remote"; remote: string }
  | { type: "plan"; plan: string }
  /** Its agent `agent` was forked to the new session `to`. */
  | { type: "fork"; agent: string; to: string; name: string; clean: boolean }
  /**
   * Its budget (see Session.budget) passed a warning's fraction of a limit (0.5, 0.8), or reached it
   * (1: every turn charged to it stops).
   */
  | { type: "budget"; fraction: number; message: string }
  /** Its budget's limits were set (`ctl budget …`): null where there is none. */
  | { type: "limits"; usd: number | null; tokens: number | null }
  /** It was killed: the last record. */
  | { type: "kill" };

export type SessionEventRecord = EventStamp & { kind: "session" } & SessionEventBody;

/** This reader fell so far behind that olliesrv dropped `count` events for it. */
export interface EventsDropped {
  kind: "dropped";
  topic: "events.dropped";
  time: string;
  count: number;
}

/** An event of a topic this client does not know: its fields as they came. */
export interface OtherEvent extends EventStamp {
  kind: "other";
  fields: Record<string, unknown>;
}
