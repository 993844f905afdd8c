import { type Batch, type BatchLimits, LineBatch } from "./line-batch.js";

/** A batch the agent has taken as a prompt. */
export interface Delivery {
  /** The prompt's number at its agent. */
  ticket: string;
  /** Settles when the prompt's turn has ended; rejects when it cannot be known (the session was killed). */
  ended: Promise<unknown>;
}

export interface BatchSenderOptions extends BatchLimits {
  /** How long the lines after a quiet spell are gathered before they go, in milliseconds. */
  windowMs: number;
  /** Writes a batch as a prompt and resolves once the agent has taken it. `last` marks the final one. */
  deliver(batch: Batch, last: boolean): Promise<Delivery>;
  /** Told of each batch taken, counted from 1. Must not throw. */
  sent?(count: number, batch: Batch, ticket: string): void;
}

/**
 * Turns lines arriving at any pace into prompts an agent can keep up with. The first line after a quiet
 * spell opens a window; when it closes, what came meanwhile goes as one prompt — at once when a batch's worth
 * has come. One batch is in the agent's hands at a time: until its turn has ended, what arrives is merged
 * into the next batch rather than queued behind it, so a busy agent is never buried in prompts.
 */
export class BatchSender {
  private readonly pending: LineBatch;
  private timer: NodeJS.Timeout | undefined;
  private due = false;
  /** A batch is being written, or its turn has not ended. */
  private busy = false;
  private writing: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private fail!: (error: Error) => void;
  private count = 0;
  /** Rejects with the first failure to deliver a batch (or to learn that its turn ended). */
  readonly failed: Promise<never>;

  constructor(private readonly options: BatchSenderOptions) {
    this.pending = new LineBatch(options);
    this.failed = new Promise<never>((_, reject) => {
      this.fail = reject;
    });
    // Whoever runs the sender races it; left alone it must not be an unhandled rejection.
    this.failed.catch(() => {});
  }

  /** How many batches were taken. */
  get batches(): number {
    return this.count;
  }

  push(line: string): void {
    if (this.stopped) return;
    this.pending.add(line);
    if (this.pending.size === 1 && !this.due)
      this.timer = setTimeout(() => this.windowClosed(), this.options.windowMs);
    this.pump();
  }

  /**
   * Sends what is left as the last batch (behind a turn still running: it queues) and resolves once the agent
   * has taken it; no line is kept back. Resolves with the batch count.
   */
  async finish(): Promise<number> {
    this.stopWindow();
    this.stopped = true;
    await this.writing;
    if (this.pending.size > 0) await this.write(this.pending.take(), true);
    return this.count;
  }

  /** Stops at once: nothing more is sent. Returns how many lines were not. */
  discard(): number {
    this.stopWindow();
    this.stopped = true;
    return this.pending.take().total;
  }

  private windowClosed(): void {
    this.timer = undefined;
    this.due = true;
    this.pump();
  }

  private pump(): void {
    if (this.busy || this.stopped || this.pending.size === 0 || !(this.due || this.pending.full)) return;
    this.stopWindow();
    this.busy = true;
    const batch = this.pending.take();
    void this.write(batch, false)
      .then((delivery) => delivery.ended)
      .then(
        () => {
          this.busy = false;
          // Lines that came during the turn whose window has closed go now; a full batch too.
          this.pump();
        },
        (error: unknown) => {
          if (!this.stopped) this.fail(error as Error);
        },
      );
  }

  private write(batch: Batch, last: boolean): Promise<Delivery> {
    const writing = this.options.deliver(batch, last).then((delivery) => {
      this.count++;
      this.options.sent?.(this.count, batch, delivery.ticket);
      // Not waited for by a last batch: its failure (the session killed meanwhile) is nobody's concern.
      delivery.ended.catch(() => {});
      return delivery;
    });
    this.writing = writing.catch(() => {});
    writing.catch((error: unknown) => this.fail(error as Error));
    return writing;
  }

  private stopWindow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due = false;
  }
}
