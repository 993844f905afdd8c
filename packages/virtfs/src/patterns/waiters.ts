/**
 * Callers waiting for something to happen. `wait` resolves at the next `wake`, or rejects with the signal's
 * reason when it aborts first (and then leaves nothing behind). After `fail`, every wait rejects with its
 * error: what was awaited will never happen.
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

  wait(signal?: AbortSignal): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const wake = (error?: Error) => {
        signal?.removeEventListener("abort", onAbort);
        if (error) reject(error);
        else resolve();
      };
      const onAbort = () => {
        this.waiting.delete(wake);
        reject(signal!.reason);
      };
      this.waiting.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
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
