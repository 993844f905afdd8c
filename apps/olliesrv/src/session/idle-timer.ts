/**
 * Calls `fire` once something has stayed idle for `afterMs` (0: never): `start` when it goes idle (again),
 * `stop` when it gets busy. The timer does not keep the process alive.
 */
export class IdleTimer {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly afterMs: number,
    private readonly fire: () => void,
  ) {}

  start(): void {
    this.stop();
    if (this.afterMs <= 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.fire();
    }, this.afterMs);
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
