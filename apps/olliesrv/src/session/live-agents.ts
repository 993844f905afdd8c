/**
 * How many agents of the daemon are live (made, and not parked or closed since), and who hears when that
 * changes: `--idle-exit` waits for none to be.
 */
export class LiveAgents {
  #count = 0;
  readonly #listeners = new Set<() => void>();

  get count(): number {
    return this.#count;
  }

  /** An agent was made live (`true`) or parked or closed (`false`). */
  changed(live: boolean): void {
    this.#count += live ? 1 : -1;
    for (const listener of this.#listeners) listener();
  }

  /** Calls `listener` at every change; returns what stops it. */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** One slot's live agent, counted in the daemon's LiveAgents while there is one. */
export class CountedLive<T> {
  #value: T | undefined;

  constructor(private readonly count: LiveAgents) {}

  get(): T | undefined {
    return this.#value;
  }

  set(value: T | undefined): void {
    if ((this.#value === undefined) !== (value === undefined)) this.count.changed(value !== undefined);
    this.#value = value;
  }
}
