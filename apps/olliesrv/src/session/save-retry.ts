import type { Logger } from "@ollie/log";

/** How often a save that failed is tried again: from `firstMs`, doubling up to `maxMs`. */
export interface RetryDelays {
  firstMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY_DELAYS: Readonly<RetryDelays> = { firstMs: 1000, maxMs: 30_000 };

/**
 * Saves again, on a timer, what could not be saved (a full disk, say), so that work finished meanwhile
 * reaches the disk as soon as there is room — not only at the next event, which may never come. The log
 * says it once: an ERROR at the first failure, a count at 10, 100, 1,000… failures, and a line when a
 * save works again. Whatever saves meanwhile (the agent after a round, a ctl command) counts as a try.
 */
export class SaveRetry {
  private failures = 0;
  private since = 0;
  private delay: number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    /** What is saved, as the log names it: `session ID`. */
    private readonly what: string,
    private readonly save: () => Promise<void>,
    private readonly log: Pick<Logger, "error" | "warn" | "info">,
    private readonly delays: RetryDelays = DEFAULT_RETRY_DELAYS,
  ) {
    this.delay = delays.firstMs;
  }

  /** How many saves in a row have failed (0: the last one worked). */
  get failing(): number {
    return this.failures;
  }

  /** A save failed: said once, and tried again later. */
  failed(error: unknown): void {
    if (this.stopped) return;
    this.failures++;
    const why = (error as Error).message;
    if (this.failures === 1) {
      this.since = Date.now();
      this.log.error(
        `${this.what} could not be saved: ${why}; what it holds stays in memory and is saved as soon as a save works (tried again from ${this.delay / 1000} s, backing off to ${this.delays.maxMs / 1000} s)`,
      );
    } else if (isPowerOfTen(this.failures)) {
      this.log.warn(
        `${this.what} still not saved: ${this.failures} failed saves in ${this.elapsed()}: ${why}`,
      );
    }
    this.schedule();
  }

  /** A save worked: the log says so if some had failed. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.log.info(`${this.what} saved again, after ${this.failures} failed save(s) in ${this.elapsed()}`);
    this.failures = 0;
    this.delay = this.delays.firstMs;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** No more tries (the session is closing or killed). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // The save reports its own outcome (succeeded, or failed and scheduled again).
      this.save().catch(() => undefined);
    }, this.delay);
    // A save waiting to be tried again does not keep the process alive.
    this.timer.unref();
    this.delay = Math.min(this.delay * 2, this.delays.maxMs);
  }

  private elapsed(): string {
    const s = Math.round((Date.now() - this.since) / 1000);
    return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
  }
}

function isPowerOfTen(n: number): boolean {
  for (let p = 10; p <= n; p *= 10) if (p === n) return true;
  return false;
}
