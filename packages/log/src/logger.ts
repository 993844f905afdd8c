/*
 * The logger of the Ollie daemons (olliesrv and toolsrv), written here rather than taken from pino: the
 * people who read these lines read them in a terminal, through journald or in a log file, so a line is plain
 * text (time, level, program and category, message), never JSON that needs a pretty-printer to be read. Each
 * line is one `write` on the caller's thread (process.stderr writes synchronously on Linux, to a terminal,
 * file or pipe, and a log file is written with writeSync): no worker thread and no dependency, so a daemon that exits right after an error has logged it, and
 * no line is ever interleaved with another. There is no colour, ever, so NO_COLOR is respected by
 * construction and journald stores no escape codes. A line cannot be forged from inside a message (control
 * characters are escaped), and the secrets a daemon knows are replaced before a line is written.
 */
import { asOneLine, formatLine } from "./format-line.js";
import { type LogLevel, passes } from "./levels.js";
import { openLogFile } from "./log-file.js";
import { DEFAULT_LOG_SETTINGS, type LogSettings, thresholdFor } from "./log-settings.js";
import type { LogStream } from "./log-stream.js";
import { assertLogName } from "./names.js";
import { Redactor } from "./redactor.js";

export interface LoggerOptions {
  /** The program each line names, e.g. `olliesrv`: lowercase letters, digits, `_` and `-`. */
  program: string;
  /** Which lines to write (default: `info` and more severe, in every category); see resolveLogSettings. */
  settings?: LogSettings;
  /**
   * Default: the file `settings.file` names, opened here for appending and reopened on SIGHUP (see
   * openLogFile; a file that cannot be opened throws LogFileError), else process.stderr.
   */
  stream?: LogStream;
  /** Strings replaced with `[redacted]` wherever they appear in a message (keys, tokens); see addSecret. */
  secrets?: Iterable<string>;
  /**
   * Runs on every message after the secrets are replaced, to hide what is not known in advance (e.g.
   * `redactText` of @ollie/backends, for credentials in URLs). It must not throw, and must not log.
   */
  redact?: (text: string) => string;
  /** The clock lines are stamped with (default: the system's); for tests. */
  now?: () => Date;
}

/**
 * Writes one line per call, if its level passes the threshold of this logger's category. Its methods may be
 * passed around unbound (`onError: (e) => log.error(e.message)` or `.forEach(log.info)`). No method throws
 * unless the stream's `write` or the `redact` option does.
 */
export interface Logger {
  /** Undefined for the program's own lines, which the threshold without a category governs. */
  readonly category: string | undefined;
  readonly error: (message: string) => void;
  readonly warn: (message: string) => void;
  readonly info: (message: string) => void;
  readonly debug: (message: string) => void;
  readonly trace: (message: string) => void;
  /** Whether a line at `level` would be written: to skip building costly messages, or a trace hook. */
  readonly enabled: (level: LogLevel) => boolean;
  /**
   * The logger of `category` (lowercase letters, digits, `_` and `-`), sharing this one's program, settings,
   * stream and secrets. Categories are flat: a child's child is its sibling.
   */
  readonly child: (category: string) => Logger;
  /** Adds a secret that every logger of this program replaces from now on (empty strings are ignored). */
  readonly addSecret: (secret: string) => void;
  /**
   * `text` with this program's secrets replaced, as a line would have them: for what leaves the program
   * another way than its log (exported telemetry), so one list of secrets guards both.
   */
  readonly redact: (text: string) => string;
  /**
   * Writes a line another program's logger already formatted, such as a child daemon's stderr line, as it
   * is — whatever the threshold, which the child applied — but with the secrets replaced and control
   * characters escaped, so a child cannot forge lines either.
   */
  readonly relay: (line: string) => void;
}

/** What every logger of one program shares. */
interface Shared {
  program: string;
  settings: LogSettings;
  stream: LogStream;
  redactor: Redactor;
  now: () => Date;
}

export function createLogger(options: LoggerOptions): Logger {
  assertLogName(options.program, "program");
  const settings = options.settings ?? DEFAULT_LOG_SETTINGS;
  return categoryLogger(
    {
      program: options.program,
      settings,
      stream: options.stream ?? (settings.file === undefined ? process.stderr : openLogFile(settings.file)),
      redactor: new Redactor(options.secrets, options.redact),
      now: options.now ?? (() => new Date()),
    },
    undefined,
  );
}

function categoryLogger(shared: Shared, category: string | undefined): Logger {
  const threshold = thresholdFor(shared.settings, category);
  const enabled = (level: LogLevel) => passes(level, threshold);
  const at = (level: LogLevel) => (message: string) => {
    if (!enabled(level)) return;
    const { program, now, redactor } = shared;
    shared.stream.write(
      formatLine({ time: now(), level, program, category, message: redactor.apply(message) }),
    );
  };
  return {
    category,
    error: at("error"),
    warn: at("warn"),
    info: at("info"),
    debug: at("debug"),
    trace: at("trace"),
    enabled,
    child: (name) => {
      assertLogName(name, "category");
      return categoryLogger(shared, name);
    },
    addSecret: (secret) => shared.redactor.add(secret),
    redact: (text) => shared.redactor.apply(text),
    relay: (line) => shared.stream.write(`${asOneLine(shared.redactor.apply(line))}\n`),
  };
}
