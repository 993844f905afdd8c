import type { TurnStatus } from "../formats/outcome.js";
import type { UsageTotals } from "../formats/usage.js";

/**
 * The version of the lines `ollie run --json` prints, in its `start` line. A line type or field added keeps
 * the number; one renamed, removed or given another meaning takes the next.
 */
export const RUN_EVENTS_VERSION = 1;

/**
 * How a run ended: its turn's status, or why ollie ended the turn itself — `maxcost` (its cost passed
 * `--max-cost`) or `approval` (an agent asked for an approval, with `--approve fail`).
 */
export type RunStatus = TurnStatus | "maxcost" | "approval";

/** What `ollie run` does with an approval (a bypass request) an agent asks for: it never waits for one. */
export type RunApprovals = "deny" | "fail";

/** The first line: what runs, where, and under which limits. */
export interface RunStart {
  type: "start";
  version: typeof RUN_EVENTS_VERSION;
  /** The session's id. */
  session: string;
  /** The agent prompted, as `SESSION.AGENT`. */
  agent: string;
  profile: string;
  backend?: string;
  model?: string;
  cwd: string;
  /** Approvals are denied at once (`deny`), or denied and the run ended (`fail`). */
  approvals: RunApprovals;
  /** The rounds of tool calls the turn may make (`--max-turns`), when limited. */
  maxTurns?: number;
  /** What the run may cost (`--max-cost`), when limited. */
  maxCostUsd?: number;
  /** Whether the session is left when the run ends (`--session`, `--keep`); otherwise it is removed. */
  kept: boolean;
}

/** The model's reply as it streams. */
export interface RunText {
  type: "text";
  delta: string;
}

/** The model's reasoning as it streams, where the provider shows it. */
export interface RunReasoning {
  type: "reasoning";
  delta: string;
}

/** The reply streamed since the last request is void: it is asked again (after a retry), and streams anew. */
export interface RunDiscard {
  type: "discard";
  /** The void text. */
  text: string;
}

/** A tool call, as the model made it. */
export interface RunToolCall {
  type: "tool_call";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A tool call's result (`id` is its call's). */
export interface RunToolResult {
  type: "tool_result";
  id: string;
  name: string;
  output: string;
  /** The call failed (the output says why). */
  error: boolean;
}

/** What one model request used, and the run's totals so far. */
export interface RunUsage {
  type: "usage";
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheCreationTokens: number;
  reasoningTokens?: number;
  /** This request's cost in US dollars (0 for a model without a price). */
  costUsd: number;
  /** The run's tokens, requests and cost so far. */
  total: UsageTotals;
}

/** An agent of the run asked for an approval, and the run denied it at once. */
export interface RunApproval {
  type: "approval";
  /** The bypass request's number. */
  request: number;
  /** The agent that asked, as `SESSION.AGENT`. */
  agent: string;
  operation: string;
  command: string;
  /** Why the agent asked. */
  reason: string;
  decision: "denied";
  /** What the agent was told. */
  message: string;
}

/** Something the agent or olliesrv said on the way: a retry, a reply cut short, a note in its chat. */
export interface RunNotice {
  type: "notice";
  message: string;
}

/** A failure in the turn (its outcome follows), or of ollie itself. */
export interface RunError {
  type: "error";
  message: string;
}

/** The last line: how the run ended. */
export interface RunOutcome {
  type: "outcome";
  status: RunStatus;
  /** `ollie run`'s exit status for it (see its table). */
  exitStatus: number;
  /** Rounds of tool calls made. */
  steps: number;
  usage: UsageTotals;
  /** The run's cost in US dollars: `usage.costUsd`. */
  costUsd: number;
  /** The model's last complete reply ("" when it gave none). */
  reply: string;
  /** What went wrong, or why ollie ended the turn. */
  error?: string;
  session: string;
  /** Whether the session was left (`--session`, `--keep`) rather than removed. */
  kept: boolean;
}

/** One line of `ollie run --json`: a `start` line, events as they happen, then an `outcome` line. */
export type RunEvent =
  | RunStart
  | RunText
  | RunReasoning
  | RunDiscard
  | RunToolCall
  | RunToolResult
  | RunUsage
  | RunApproval
  | RunNotice
  | RunError
  | RunOutcome;
