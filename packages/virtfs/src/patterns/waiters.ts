import { type AbortSource, whenAborted } from "./abort-source.js";

/**
 * Callers waiting for something to happen. `wait` resolves at the next `wake`, or rejects with the abort's
 * reason when `until` aborts first (and then leaves nothing behind). After `fail`, every wait rejects with
 * its error: what was awaited will never happen.
 */
export class Waiters {
  private readonly waiting = new Set<(error?: Error) => void>();
  private failure: Error | undefined;

  get size(): number {
    return this.waiting.size;
  }

  /** The error every wait now rejects with, once `fail` was called. */
  get failed(): Error | undefined {
    return this.failure;
  }

  wait(until?: AbortSource): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      let forget: (() => void) | undefined;
      const wake = (error?: Error) => {
        forget?.();
        if (error) reject(error);
        else resolve();
      };
      this.waiting.add(wake);
      if (until) {
        forget = whenAborted(until, (reason) => {
          this.waiting.delete(wake);
          reject(reason);
        });
      }
    });
  }

  wake(): void {
    this.settle();
  }

  /** Rejects every wait, now and later, with `error`. */
  fail(error: Error): void {
    this.failure ??= error;
    this.settle(this.failure);
  }

  private settle(error?: Error): void {
    const woken = [...this.waiting];
    this.waiting.clear();
    for (const w of woken) w(error);
  }
}
