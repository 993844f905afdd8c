import type { TurnOutcome } from "@ollie/agent-core";

/** How a prompt's turn ended, as `prompts/N` shows it. */
export interface PromptResult {
  /** `done`, `interrupted`, `maxsteps`, `blocked`, `handled`, `budget` or `error: …` (the `outcome` file's words). */
  outcome: string;
  /** The model's last complete reply of the turn ("" if there was none). */
  reply: string;
}

/** The words the `outcome` file and `prompts/N` use for how a turn ended. */
export function outcomeText(o: TurnOutcome): string {
  return o.status === "error" ? `error: ${o.error.message}` : o.status;
}

/** Why a ticket cannot be waited for. */
export class TicketError extends Error {
  override readonly name = "TicketError";
}

/**
 * The numbers an agent gives the prompts it takes — 1, 2, 3, … over the agent's life, restarts included —
 * and how each one's turn ended: what lets a program that wrote a prompt wait for exactly that prompt's
 * turn, however fast it ended and whoever else prompts meanwhile. The last `keep` are remembered.
 */
export class PromptTickets {
  private readonly results = new Map<number, Promise<PromptResult>>();
  /** Tickets up to this one were issued before the daemon last started: their turns are not known here. */
  private readonly restoredUpTo: number;
  private ended: Error | undefined;
  private readonly endWaiters = new Set<(reason: Error) => void>();

  constructor(
    private last = 0,
    private readonly keep = 256,
  ) {
    this.restoredUpTo = last;
  }

  /** The last ticket issued (0: none yet). */
  get issued(): number {
    return this.last;
  }

  /** Numbers a submitted prompt; `done` settles when its turn ends. */
  issue(done: PromiseLike<TurnOutcome>): number {
    const ticket = ++this.last;
    this.results.set(
      ticket,
      Promise.resolve(done).then((o) => ({ outcome: outcomeText(o), reply: o.reply?.content ?? "" })),
    );
    this.results.delete(ticket - this.keep);
    return ticket;
  }

  /**
   * Waits for how prompt `ticket`'s turn ended: at once if it already has. Rejects with a TicketError for a
   * ticket never issued, one issued before a restart or too long ago to remember; with the end's reason
   * when the agent ends (its session killed); with the signal's reason when it aborts.
   */
  async wait(ticket: number, signal: AbortSignal): Promise<PromptResult> {
    const result = this.results.get(ticket);
    if (!result) throw new TicketError(this.whyUnknown(ticket));
    if (this.ended) throw this.ended;
    signal.throwIfAborted();
    let stop!: (reason: Error) => void;
    const stopped = new Promise<never>((_, reject) => {
      stop = reject;
    });
    const onAbort = () => stop(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    this.endWaiters.add(stop);
    try {
      return await Promise.race([result, stopped]);
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.endWaiters.delete(stop);
    }
  }

  /** The tickets still remembered, oldest first. */
  remembered(): number[] {
    return [...this.results.keys()];
  }

  /** Answers every waiter, now and later, with `reason`. */
  end(reason: Error): void {
    this.ended = reason;
    for (const stop of this.endWaiters) stop(reason);
    this.endWaiters.clear();
  }

  private whyUnknown(ticket: number): string {
    if (!Number.isSafeInteger(ticket) || ticket < 1 || ticket > this.last)
      return `no prompt ${ticket} has been taken (the last is ${this.last})`;
    if (ticket <= this.restoredUpTo)
      return `prompt ${ticket} was taken before olliesrv restarted: how its turn ended is in the chat`;
    return `prompt ${ticket} is too old: only the last ${this.keep} are remembered`;
  }
}
