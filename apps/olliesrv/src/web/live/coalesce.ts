/**
 * Work done at most once per `everyMs` for each key, and never twice at once: a burst of events asking for
 * the same re-read becomes one read after the burst's first, and one more if more came while it ran. What a
 * page shows is the state read last, so nothing is lost by skipping the reads in between.
 */
export class Coalesce {
  private readonly waiting = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<string>();
  private readonly again = new Map<string, () => Promise<void>>();
  private closed = false;

  constructor(private readonly everyMs: number) {}

  schedule(key: string, work: () => Promise<void>): void {
    if (this.closed || this.waiting.has(key)) return;
    if (this.running.has(key)) {
      this.again.set(key, work);
      return;
    }
    this.waiting.set(
      key,
      setTimeout(() => {
        this.waiting.delete(key);
        this.running.add(key);
        work()
          .catch(() => {
            // A read that fails (the session ending as it is read) is for the next event to put right.
          })
          .finally(() => {
            this.running.delete(key);
            const next = this.again.get(key);
            this.again.delete(key);
            if (next) this.schedule(key, next);
          });
      }, this.everyMs),
    );
  }

  close(): void {
    this.closed = true;
    for (const timer of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    this.again.clear();
  }
}
