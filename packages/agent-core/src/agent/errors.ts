/** A prompt was refused because the queue is full; nothing was queued. */
export class QueueFullError extends Error {
  override readonly name = "QueueFullError";
  constructor(readonly capacity: number) {
    super(`the prompt queue is full (${capacity} waiting): nothing was queued`);
  }
}

/** Text to inject was refused because too much is already waiting to be injected. */
export class InjectionsFullError extends Error {
  override readonly name = "InjectionsFullError";
  constructor(readonly capacity: number) {
    super(`${capacity} injections are already waiting: nothing was injected`);
  }
}

/** The reason a turn's signal carries when `interrupt` stopped it. */
export class TurnInterruptedError extends Error {
  override readonly name = "TurnInterruptedError";
  constructor(readonly reason: string) {
    super(`the turn was interrupted: ${reason}`);
  }
}

/**
 * Why a running turn was stopped by Agent.stopForBudget: a budget it is charged to is spent (by another
 * agent, or by the request this turn was making). The turn ends in `budget` with `budget` as its reason.
 */
export class BudgetStopError extends Error {
  override readonly name = "BudgetStopError";
  constructor(readonly budget: string) {
    super(`the turn was stopped: budget: ${budget}`);
  }
}

/** An operation that cannot happen while a turn runs. */
export class AgentBusyError extends Error {
  override readonly name = "AgentBusyError";
  constructor(readonly operation: string) {
    super(`cannot ${operation} while a turn runs`);
  }
}

/** A hook refused what was about to happen (it exited 2). */
export class HookBlockedError extends Error {
  override readonly name = "HookBlockedError";
  constructor(
    readonly event: string,
    readonly reason: string,
  ) {
    super(`the ${event} hook blocked it: ${reason}`);
  }
}
