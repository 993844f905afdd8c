// The public face of @ollie/log: every name exported here is part of the API. Why it exists: logger.ts.

export { LOG_LEVELS, type LogLevel, type LogThreshold } from "./levels.js";
export {
  DEFAULT_LOG_SETTINGS,
  type LogSettings,
  LogSettingsError,
  parseLogSettings,
  resolveLogSettings,
  withCategory,
} from "./log-settings.js";
export { createLogger, type Logger, type LoggerOptions, type LogStream } from "./logger.js";
export { REDACTED } from "./redactor.js";
