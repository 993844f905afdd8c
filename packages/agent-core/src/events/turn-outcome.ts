import type { AssistantMessage, BackendError } from "@ollie/backends";
import type { UsageTotals } from "../history/usage-meter.js";
import type { SafetyStopError } from "../loop/safety.js";
import type { StopNotice } from "./stop-notice.js";

/**
 * What ended a turn in `error`: the backend's failure, once the retries it earned were spent (a
 * `RateLimitError`, a `TransientError` — `StreamIdleError` among them —, an `UnreachableError`, an
 * `AuthError`, a `BadRequestError`, a `ToolUnsupportedError`, a `ContextOverflowError` that compacting could
 * not make room for, or an `UnknownBackendError` carrying whatever else a backend threw as its `cause`), or
 * the safety monitor's stop. Tool failures and timeouts never end a turn (the model reads them as results),
 * nor does a failed compaction (an `error` event; the old history stays).
 */
export type TurnError = BackendError | SafetyStopError;

/** What every outcome says, whatever its status. */
interface OutcomeBase {
  /** Rounds of tool calls made. */
  steps: number;
  /** What the turn's requests used: tokens, requests, cost. */
  usage: UsageTotals;
  /** The model's last complete reply, if there was one. */
  reply?: AssistantMessage;
  /**
   * How `reply` ended when that was not a normal end: the output limit, a safety filter, a refusal, a
   * blocked prompt, a malformed tool call, an empty reply.
   */
  stop?: StopNotice;
}

/** The model answered without calling tools (its answer may have ended short: see `stop`). */
export interface DoneOutcome extends OutcomeBase {
  status: "done";
  reply: AssistantMessage;
}

/**
 * `interrupt` stopped it (or `clearQueue` or `close` took its prompt off the queue before it ran: no steps,
 * no reply). What was streamed and run so far is in the history.
 */
export interface InterruptedOutcome extends OutcomeBase {
  status: "interrupted";
  /**
   * The text of the reply the interrupt cut short, as it entered the history; empty when the interrupt
   * came between requests (while tools ran, a hook, a compaction) or before the model said anything.
   */
  partial: string;
}

/**
 * The step limit was reached: the model was asked for a last answer without tools (`reply`; a call it made
 * anyway was not run).
 */
export interface MaxStepsOutcome extends OutcomeBase {
  status: "maxsteps";
  reply: AssistantMessage;
  /** The limit reached: the runtime's `maxSteps` when the turn reached it. */
  maxSteps: number;
}

/** A failure ended it. */
export interface ErrorOutcome extends OutcomeBase {
  status: "error";
  error: TurnError;
}

/** The turnError hook took a backend's failure over (resolved true) and the turn stopped there. */
export interface HandledOutcome extends OutcomeBase {
  status: "handled";
  /** The failure the hook took over. */
  error: BackendError;
}

/** The preTurn hook refused the turn: the prompt never entered the history, and no request was made. */
export interface BlockedOutcome extends OutcomeBase {
  status: "blocked";
  /** Why: what the hook said (its stderr, else its stdout). */
  reason: string;
  reply?: undefined;
  stop?: undefined;
}

/**
 * The spending gate (AgentOptions.spending) refused the turn's next request: the budget is spent, or the
 * request would pass it. What the turn did before stands in the history; raising the budget lets the next
 * prompt run.
 */
export interface BudgetOutcome extends OutcomeBase {
  status: "budget";
  /** What the gate said. */
  reason: string;
}

/**
 * How a turn ended. Narrow on `status` for what each ending carries: the error on `error` and `handled`,
 * the partial text on `interrupted`, the limit on `maxsteps`, the hook's reason on `blocked`, the gate's
 * on `budget`.
 */
export type TurnOutcome =
  | DoneOutcome
  | InterruptedOutcome
  | MaxStepsOutcome
  | ErrorOutcome
  | HandledOutcome
  | BlockedOutcome
  | BudgetOutcome;

/** How a turn ended: `done`, `interrupted`, `maxsteps`, `error`, `handled`, `blocked` or `budget`. */
export type TurnStatus = TurnOutcome["status"];
