import { constants } from "node:os";

/** The signals that end a long-running command cleanly: Ctrl-C, `kill`, and a terminal that went away. */
const STOPS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Takes over SIGINT, SIGTERM and SIGHUP, so that ollie cleans up (stops what it started) instead of dying:
 * `signalled` resolves with the first to arrive; `release()` gives them back.
 */
export function catchStopSignals(): { signalled: Promise<NodeJS.Signals>; release(): void } {
  let onSignal!: (signal: NodeJS.Signals) => void;
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = resolve;
  });
  for (const s of STOPS) process.on(s, onSignal);
  return {
    signalled,
    release: () => {
      for (const s of STOPS) process.off(s, onSignal);
    },
  };
}

/** The exit status a shell gives a command a signal ended: 128 plus its number (130 for SIGINT). */
export function signalStatus(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}
