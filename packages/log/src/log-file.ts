import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { LogStream } from "./log-stream.js";

/** The log file could not be opened: its path, and why. */
export class LogFileError extends Error {
  override readonly name = "LogFileError";
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`cannot open the log file ${path}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

export interface LogFileOptions {
  /**
   * Reopens the file when the process gets this signal (default SIGHUP, what logrotate's `postrotate`
   * sends); null: never. While the handler is installed the signal no longer ends the process.
   */
  reopenOn?: NodeJS.Signals | null;
  /** Where a failure to write or reopen is said, once until the file works again (default: stderr). */
  complain?: (line: string) => void;
}

/** An appended log file: a LogStream whose lines can be moved to a new file of the same name. */
export interface LogFile extends LogStream {
  /** The file, as an absolute path. */
  readonly path: string;
  /** Opens the path again (after logrotate moved the file away) and closes the old descriptor. */
  reopen(): void;
  /** Closes the file and removes the signal handler; later lines are dropped. */
  close(): void;
}

/**
 * Opens `path` for appending (made, mode 0600, with its directory, 0700, if missing), once: each line is
 * one `write` of the descriptor, so lines of several processes appending to the same file never interleave.
 * A line that cannot be written (a full disk) is dropped, and said once on stderr until writing works again;
 * the logger never throws for it. Throws LogFileError when the file cannot be opened at all.
 */
export function openLogFile(path: string, options: LogFileOptions = {}): LogFile {
  const absolute = resolve(path);
  const complain = options.complain ?? ((line: string) => process.stderr.write(line));
  const open = () => {
    try {
      mkdirSync(dirname(absolute), { recursive: true, mode: 0o700 });
      return openSync(absolute, "a", 0o600);
    } catch (error) {
      throw new LogFileError(absolute, error);
    }
  };
  let fd: number | undefined = open();
  let failing = false;
  const failed = (what: string, error: unknown) => {
    if (failing) return;
    failing = true;
    complain(`log: cannot ${what} ${absolute}: ${(error as Error)?.message ?? String(error)}\n`);
  };
  const signal = options.reopenOn === undefined ? "SIGHUP" : options.reopenOn;
  const file: LogFile = {
    path: absolute,
    write(chunk: string) {
      if (fd === undefined) return;
      try {
        writeSync(fd, chunk);
        failing = false;
      } catch (error) {
        failed("write to", error);
      }
    },
    reopen() {
      if (fd === undefined) return;
      let next: number;
      try {
        next = open();
      } catch (error) {
        // The old file stays in use: its lines are not lost.
        failed("reopen", (error as LogFileError).cause);
        return;
      }
      const old = fd;
      fd = next;
      failing = false;
      closeSync(old);
    },
    close() {
      if (signal) process.off(signal, onSignal);
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
  const onSignal = () => file.reopen();
  if (signal) process.on(signal, onSignal);
  return file;
}
