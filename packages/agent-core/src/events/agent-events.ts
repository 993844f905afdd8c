import type { ToolCall, ToolResultMessage, Usage } from "@ollie/backends";
import type { UsageTotals } from "../history/usage-meter.js";
import type { HookEvent } from "../hooks/agent-hooks.js";
import type { StopNotice } from "./stop-notice.js";
import type { TurnOutcome } from "./turn-outcome.js";

/**
 * What the agent is doing: nothing (`idle`), a turn waiting for the model (`thinking`) or running tools
 * (`calling: read, grep`), or — shown over those while it runs — a hook (`hook: preTurn`), a compaction
 * (`compacting`) or the profile's prompt commands run again after one (`prompt commands`). Only `idle` means
 * nothing runs; even then `Agent.busy` is true while a prompt waits to start.
 */
export type AgentState =
  | "idle"
  | "thinking"
  | `calling: ${string}`
  | `hook: ${HookEvent | "turnError"}`
  | "compacting"
  | "prompt commands";

/**
 * Everything an agent reports, in order. Observers get each event synchronously, as it happens; a listener
 * must not throw (a throw is caught and dropped) and should not block.
 */
export type AgentEvent =
  /** A prompt (or an injection, or a nudge from the loop with `from: "ollie"`) entered the history. */
  | { type: "user"; text: string; from: "user" | "inject" | "ollie" }
  | { type: "assistant"; delta: string }
  | { type: "reasoning"; delta: string }
  | { type: "call"; call: ToolCall }
  | { type: "tool"; call: ToolCall; result: ToolResultMessage }
  /**
   * What a request used. For a compaction summary's request, `model` is the model that wrote it and
   * `compaction` the compaction totals so far (the summary also counts in `session`, and in `turn` when a
   * turn is running).
   */
  | {
      type: "usage";
      request: Usage;
      costUsd: number;
      turn: UsageTotals;
      session: UsageTotals;
      model?: string;
      compaction?: UsageTotals;
    }
  | { type: "state"; state: AgentState }
  /**
   * A transient failure of attempt `attempt` (1: the first); the request is tried again after `delayMs`, as
   * attempt `attempt + 1` of at most `maxAttempts` (the limit for this kind of failure: an unreachable
   * backend gets fewer than a failing server).
   */
  | { type: "retry"; attempt: number; maxAttempts: number; delayMs: number; message: string; error?: unknown }
  /** A rate limit; the request is retried after `delayMs` (the provider's retry-after when it gave one). */
  | {
      type: "limitretry";
      attempt: number;
      maxAttempts: number;
      delayMs: number;
      message: string;
      error?: unknown;
    }
  | { type: "maxsteps"; steps: number }
  /** The history was compacted (its old form is in `snapshot`, when snapshots are kept). */
  | {
      type: "compaction";
      trigger: "threshold" | "overflow" | "command";
      tokensBefore: number;
      tokensAfter: number;
      dropped: number;
      snapshot?: string;
      /** The model that wrote the summary (absent when there was nothing old enough to summarize). */
      model?: string;
    }
  | { type: "error"; message: string; error?: unknown }
  /** A reply ended short (see TurnOutcome's `stop`); `message` says how and what to do next. */
  | ({ type: "stopreason" } & StopNotice)
  /**
   * A retried request's reply differs from the partial reply its failed attempt streamed (the text in
   * `partial`): that text is void, and the new reply follows in full. (A retry that repeats the partial
   * text is not streamed twice: only what it adds is.)
   */
  | { type: "discard"; partial: string }
  | { type: "info"; message: string }
  /** A turn ended. */
  | { type: "turn"; outcome: TurnOutcome };

export type AgentListener = (event: AgentEvent) => void;
