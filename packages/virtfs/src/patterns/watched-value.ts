import type { AbortSource } from "./abort-source.js";
import { Waiters } from "./waiters.js";

/** Something whose current value can be read and whose changes can be awaited. */
export interface Watchable<T> {
  get(): T;
  /** Counts changes, if the source keeps count (used as the qid version). */
  readonly version?: number;
  /** Resolves at the next change (or rejects when `signal` aborts). */
  changed(signal?: AbortSignal): Promise<void>;
}

/** A value that tells waiters when it changes: the source of a `wait` file. */
export class WatchedValue<T> implements Watchable<T> {
  private current: T;
  private changes = 0;
  private readonly waiters = new Waiters();

  constructor(initial: T) {
    this.current = initial;
  }

  get(): T {
    return this.current;
  }

  /** How many times the value has changed (the files' qid version). */
  get version(): number {
    return this.changes;
  }

  /** Readers now waiting for a change. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Sets the value; waiters wake only if it differs from the current one. */
  set(value: T): void {
    if (Object.is(value, this.current)) return;
    this.current = value;
    this.changes++;
    this.waiters.wake();
  }

  /** Resolves at the next change, or rejects when `until` (a signal, or a file handler's context) aborts. */
  changed(until?: AbortSource): Promise<void> {
    return this.waiters.wait(until);
  }

  /**
   * Ends the value's life: every reader waiting for a change, now or later, gets `error` (e.g. "session
   * killed") instead of waiting for a change that will never come. The value can still be read.
   */
  close(error: Error): void {
    this.waiters.fail(error);
  }
}
