interface Waiter<T> {
  field: keyof T;
  current: unknown;
  resolve(value: unknown): void;
}

/** Waiters for a field of some state to differ from a value, woken when the owner says something changed. */
export class ChangeWatch<T extends object> {
  private waiters: Waiter<T>[] = [];

  constructor(private readonly read: () => T) {}

  wait<K extends keyof T>(field: K, current: T[K], signal?: AbortSignal): Promise<T[K]> {
    const now = this.read()[field];
    if (now !== current) return Promise.resolve(now);
    return new Promise<T[K]>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const waiter: Waiter<T> = {
        field,
        current,
        resolve: (value) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(value as T[K]);
        },
      };
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  changed(): void {
    if (this.waiters.length === 0) return;
    const now = this.read();
    const still: Waiter<T>[] = [];
    for (const w of this.waiters) {
      if (now[w.field] !== w.current) w.resolve(now[w.field]);
      else still.push(w);
    }
    this.waiters = still;
  }
}
