/** What the signals do to a turn being followed: the first stops the turn, the second leaves. */
export interface TurnInterrupts {
  /** Aborted by the second signal: stop following, now. */
  readonly leaving: AbortSignal;
  /** The first signal that came, if one did. */
  readonly first: NodeJS.Signals | undefined;
  /** The prompt was taken: from now there is a turn to stop (at once, if a signal came before). */
  submitted(): void;
  /** Gives the signals back. */
  release(): void;
}

export interface InterruptOptions {
  /** The signals taken over: Ctrl-C's, and for a run in CI also SIGTERM and SIGHUP. */
  signals: readonly NodeJS.Signals[];
  /** Stops the turn at the daemon. */
  stop: () => Promise<unknown>;
  /** Says a line of ollie's own (on stderr). */
  say: (line: string) => void;
  /** Said at the first signal. */
  stopping: string;
  /** Said at the second. */
  leaving: string;
}

/**
 * Takes over `signals` while a turn is followed (`ollie ask`, `ollie run`): the first stops the turn on the
 * server — and ollie waits to see it end — and the second aborts `leaving`, so that ollie leaves at once.
 * A signal before the prompt was taken stops the turn as soon as it is.
 */
export function catchTurnInterrupts(options: InterruptOptions): TurnInterrupts {
  const { say } = options;
  const leaving = new AbortController();
  let submitted = false;
  let first: NodeJS.Signals | undefined;
  // A signal may race the turn's end: a stop that finds nothing running is no failure (the outcome says how
  // the turn ended).
  const stop = () => {
    void options.stop().catch((error: unknown) => {
      // After a second signal, the connection is closed under it.
      if (!leaving.signal.aborted) say(`could not stop the turn: ${(error as Error).message}`);
    });
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = signal;
      say(options.stopping);
      if (submitted) stop();
    } else {
      say(options.leaving);
      leaving.abort();
    }
  };
  for (const s of options.signals) process.on(s, onSignal);
  return {
    leaving: leaving.signal,
    get first() {
      return first;
    },
    submitted: () => {
      submitted = true;
      if (first !== undefined) stop();
    },
    release: () => {
      for (const s of options.signals) process.off(s, onSignal);
    },
  };
}
