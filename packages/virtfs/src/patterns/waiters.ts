/**
 * Callers waiting for something to happen. `wait` resolves at the next `wake`, or rejects with the signal's
 * reason when it aborts first (and then leaves nothing behind).
 */
export class Waiters {
  private readonly waiting = new Set<() => void>();

  get size(): number {
    return this.waiting.size;
  }

  wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
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
    const woken = [...this.waiting];
    this.waiting.clear();
    for (const w of woken) w();
  }
}
