/**
 * A duration as olliesrv's `--idle-exit` and ollie's `$OLLIE_IDLE_EXIT` take it: a whole number with a unit — `ms`, `s`, `m` or `h` — or without
 * one, seconds (`90`, `90s`, `15m`, `1h`); 0 is never. Throws, naming the value, otherwise.
 */
export function parseDuration(text: string, what: string): number {
  const found = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (!found) throw new Error(`${what} takes a duration such as 90s, 15m or 1h (or 0: never), not '${text}'`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[found[2] ?? "s"]!;
  return Number(found[1]) * unit;
}

/** `15 min`, `90 s`, `1 h`: a duration for a log line. */
export function sayDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
