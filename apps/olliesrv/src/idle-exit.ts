/** What the daemon is doing, as far as stopping it would cut something short. */
export interface IdleExitOptions {
  /** How long it must stay idle before it stops (ms; more than 0). */
  afterMs: number;
  /** Whether anything holds it now: a client connected, or an agent live. */
  busy(): boolean;
  /** Stops the daemon (as SIGTERM does). */
  stop(): void;
}

/**
 * `--idle-exit`: stops the daemon once it has been idle for a while — no client connected and no agent
 * live. An agent is live from its first use until it is parked, which is once nothing of it has run for
 * `--idle-close` (no turn, hook, prompt command, compaction, waiting prompt, nor a tool process left in the
 * background): so a stop never cuts anything short, and loses nothing, since every session is saved as it
 * changes and once more as the daemon stops, and comes back at the next start. Whoever sees a client come
 * or go, or an agent made live or parked, says so (`changed`): the wait starts again from then if nothing
 * holds the daemon, and is called off if something does. Nothing is polled.
 */
export class IdleExit {
  readonly #options: IdleExitOptions;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #closed = false;

  constructor(options: IdleExitOptions) {
    this.#options = options;
  }

  /** Starts the wait (the daemon serves). */
  start(): void {
    this.#started = true;
    this.changed();
  }

  /** A client came or went, or an agent was made live or parked: the wait starts again, or stops. */
  changed(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#started || this.#closed || this.#options.busy()) return;
    this.#timer = setTimeout(() => this.expire(), this.#options.afterMs);
    // The daemon's listeners keep it alive; this never does.
    this.#timer.unref();
  }

  /** Stops waiting (the daemon stops for another reason). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  private expire(): void {
    this.#timer = undefined;
    // Whatever made it busy since said so, and called the wait off; this is for a busy() nobody told of.
    if (this.#options.busy()) return;
    this.close();
    this.#options.stop();
  }
}
