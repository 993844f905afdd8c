import type { TurnOutcome } from "../events/turn-outcome.js";

/**
 * A submitted prompt: `position` is how many turns run before it (0: it runs now); awaiting it gives the
 * turn's outcome. Its promise never rejects — failures are outcomes. Being awaitable, it is also waited for
 * when an async function returns it: return `position` (or wrap it) to answer before the turn ends.
 */
export class Submission implements PromiseLike<TurnOutcome> {
  constructor(
    readonly position: number,
    readonly done: Promise<TurnOutcome>,
  ) {}

  // biome-ignore lint/suspicious/noThenProperty: a submission is awaitable by design.
  then<R1 = TurnOutcome, R2 = never>(
    onFulfilled?: ((value: TurnOutcome) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.done.then(onFulfilled, onRejected);
  }
}
