/** The levels a line is written at, most severe first. */
export const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a category writes: its level and everything more severe, or nothing at all (`silent`). */
export type LogThreshold = LogLevel | "silent";

export const LOG_THRESHOLDS: readonly LogThreshold[] = [...LOG_LEVELS, "silent"];

export function isLogThreshold(word: string): word is LogThreshold {
  return (LOG_THRESHOLDS as readonly string[]).includes(word);
}

/** Whether a line at `level` passes `threshold`. */
export function passes(level: LogLevel, threshold: LogThreshold): boolean {
  return threshold !== "silent" && LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
}
