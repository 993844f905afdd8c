// The public face of @ollie/log: every name exported here is part of the API. Why it exists: logger.ts.

export {
  type DaemonLogFlags,
  type DaemonLogOptions,
  daemonLogSettings,
  openDaemonLog,
} from "./daemon-log.js";
export { LOG_LEVELS, type LogLevel, type LogThreshold } from "./levels.js";
export { type LogFile, LogFileError, type LogFileOptions, openLogFile } from "./log-file.js";
export {
  DEFAULT_LOG_SETTINGS,
  type LogSettings,
  LogSettingsError,
  levelsOnly,
  parseLogSettings,
  resolveLogSettings,
  splitLogValue,
  withCategory,
} from "./log-settings.js";
export type { LogStream } from "./log-stream.js";
export { createLogger, type Logger, type LoggerOptions } from "./logger.js";
export { RateLimitedLines } from "./rate-limited-lines.js";
export { REDACTED } from "./redactor.js";
