import type { LogLevel } from "./levels.js";

/** Padded to one width, so that messages line up in a terminal. */
const LABELS: Record<LogLevel, string> = {
  error: "ERROR",
  warn: "WARN ",
  info: "INFO ",
  debug: "DEBUG",
  trace: "TRACE",
};

/**
 * Control characters, format characters (a right-to-left override would reorder how a line reads), and the
 * Unicode line and paragraph separators some viewers break lines at.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const BY_NAME: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * Text as it may stand inside a log line: `\n`, `\r` and `\t` written as those two characters, any other
 * control character as `\xNN`, format characters and separators as `\uNNNN`. So a message can neither end its
 * line and start a forged one, nor move a terminal's cursor or colour it.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.codePointAt(0)!;
    return BY_NAME[c] ?? (code < 0x100 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`);
  });
}

const hex = (code: number, digits: number) => code.toString(16).padStart(digits, "0");

/** A message's trailing line breaks, which callers used to writing whole lines leave on. */
const TRAILING_BREAKS = /[\r\n]+$/;

export const asOneLine = (text: string) => escapeControls(text.replace(TRAILING_BREAKS, ""));

export interface LineParts {
  time: Date;
  level: LogLevel;
  program: string;
  category: string | undefined;
  message: string;
}

/** `2026-11-30T21:40:00.123Z WARN  olliesrv[audit]: message`, with its newline. */
export function formatLine({ time, level, program, category, message }: LineParts): string {
  const source = category === undefined ? program : `${program}[${category}]`;
  return `${time.toISOString()} ${LABELS[level]} ${source}: ${asOneLine(message)}\n`;
}
