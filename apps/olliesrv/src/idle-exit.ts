/** What the daemon is doing, as far as stopping it would cut something short. */
export interface IdleExitOptions {
  /** How long it must stay idle before it stops (ms; more than 0). */
  afterMs: number;
  /** Whether anything holds it now: a client connected, or an agent live. */
  busy(): boolean;
  /** Stops the daemon (as SIGTERM does). */
  stop(): void;
  now?: () => number;
}

/**
 * `--idle-exit`: stops the daemon once it has been idle for a while — no client connected and no agent
 * live. An agent is live from its first use until it is parked, which is once nothing of it has run for
 * `--idle-close` (no turn, hook, prompt command, compaction, waiting prompt, nor a tool process left in the
 * background): so a stop never cuts anything short, and loses nothing, since every session is saved as it
 * changes and once more as the daemon stops, and comes back at the next start. A client's coming and going
 * is told at once (`activity`); the agents are looked at on a tick, a tenth of the wait (at most 30 s).
 */
export class IdleExit {
  readonly #options: IdleExitOptions;
  readonly #now: () => number;
  #idleSince: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: IdleExitOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#idleSince = this.#now();
  }

  /** Starts looking (the daemon serves). */
  start(): void {
    const tick = Math.min(Math.max(this.#options.afterMs / 10, 50), 30_000);
    this.#idleSince = this.#now();
    this.#timer = setInterval(() => this.check(), tick);
    // The daemon's listeners keep it alive; this never does.
    this.#timer.unref();
  }

  /** A client came or went: the idle time counts from now. */
  activity(): void {
    this.#idleSince = this.#now();
  }

  /** Stops looking (the daemon stops for another reason). */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  private check(): void {
    const now = this.#now();
    if (this.#options.busy()) {
      this.#idleSince = now;
      return;
    }
    if (now - this.#idleSince < this.#options.afterMs) return;
    this.close();
    this.#options.stop();
  }
}
