import type { SpanContext } from "@opentelemetry/api";
import type { TurnOutcome } from "../events/turn-outcome.js";

/** Each submission's turn span, once started (set by the agent; read through `Submission.turnSpan`). */
const turnSpans = new WeakMap<Submission, SpanContext>();

/** Records the span of a submission's turn: for the agent that runs it. */
export function setTurnSpan(submission: Submission, span: SpanContext): void {
  turnSpans.set(submission, span);
}

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

  /**
   * The span context of its turn's `invoke_agent` span, once the turn has started and when it is recorded
   * (an OpenTelemetry SDK is registered and sampled it): what a span elsewhere links to, such as the turn a
   * callback from this one starts.
   */
  get turnSpan(): SpanContext | undefined {
    return turnSpans.get(this);
  }

  // biome-ignore lint/suspicious/noThenProperty: a submission is awaitable by design.
  then<R1 = TurnOutcome, R2 = never>(
    onFulfilled?: ((value: TurnOutcome) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.done.then(onFulfilled, onRejected);
  }
}
