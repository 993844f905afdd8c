import { openLogFile } from "./log-file.js";
import { type LogSettings, resolveLogSettings, withCategory } from "./log-settings.js";
import { createLogger, type Logger, type LoggerOptions } from "./logger.js";

/** A daemon's log flags, as its command line gave them. */
export interface DaemonLogFlags {
  /** `--log-level`'s value; undefined when it was not given. */
  logLevel?: string | undefined;
  /** `-D`: trace the 9P messages (short for the setting `9p=trace`). */
  trace9p?: boolean | undefined;
}

/**
 * The settings a daemon logs with: its `--log-level`, else `$OLLIE_LOG`, else `info` (resolveLogSettings),
 * with `9p=trace` on top for `-D`. Throws LogSettingsError, a usage mistake.
 */
export function daemonLogSettings(
  flags: DaemonLogFlags,
  env: Readonly<Record<string, string | undefined>> = process.env,
): LogSettings {
  const settings = resolveLogSettings(flags.logLevel, env);
  return flags.trace9p ? withCategory(settings, "9p", "trace") : settings;
}

export interface DaemonLogOptions extends Omit<LoggerOptions, "stream"> {
  settings: LogSettings;
  /** Where `PROGRAM: logging to PATH` is said (default: stderr). */
  notice?: (line: string) => void;
}

/**
 * A daemon's logger: to the file its settings name — opened here, and again on SIGHUP (openLogFile), and
 * said on stderr as `PROGRAM: logging to PATH`, so whoever started the daemon knows where its lines go —
 * else to stderr. Throws LogFileError when the file cannot be opened.
 */
export function openDaemonLog(options: DaemonLogOptions): Logger {
  const { notice = (line: string) => process.stderr.write(line), ...logger } = options;
  if (logger.settings.file === undefined) return createLogger(logger);
  const file = openLogFile(logger.settings.file);
  notice(`${logger.program}: logging to ${file.path}\n`);
  return createLogger({ ...logger, stream: file });
}
