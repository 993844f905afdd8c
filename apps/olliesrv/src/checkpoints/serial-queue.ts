/**
 * Runs tasks one at a time, in the order they were given: each starts when the one before has settled,
 * whether it resolved or rejected.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #waiting = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.#waiting++;
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => this.#waiting--,
      () => this.#waiting--,
    );
    return result;
  }

  /** Tasks given and not yet settled (the one running included). */
  get pending(): number {
    return this.#waiting;
  }
}
