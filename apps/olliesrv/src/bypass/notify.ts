import { readFile } from "node:fs/promises";
import { execa } from "execa";
import { oneLine } from "../one-line.js";

/** A command of notify.conf: where it was written, and its words with their `{placeholders}`. */
export interface NotifyCommand {
  line: number;
  words: string[];
}

/** What a `bypass` notification may say. */
export interface BypassNotice {
  id: number;
  agent: string;
  session: string;
  operation: string;
  command: string;
  reason: string;
  cwd: string;
}

/** The events notify.conf may name, and the placeholders each fills. */
export const NOTIFY_EVENTS = {
  bypass: ["id", "agent", "session", "operation", "command", "reason", "cwd"],
} as const;

export type NotifyEvent = keyof typeof NOTIFY_EVENTS;

/** How long a notification command may take before it is killed. */
const NOTIFY_TIMEOUT_MS = 10_000;
/** The most of an agent's text a notification carries. */
const MAX_FIELD = 300;

/**
 * Splits a command line into words as a shell would for plain words and quotes — `'…'` literal, `"…"` with
 * `\"` and `\\`, a backslash outside quotes escaping the next character — and nothing more: no variables,
 * globs, pipes or substitutions. Throws on an unterminated quote.
 */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const add = (s: string) => {
    word = (word ?? "") + s;
  };
  while (i < line.length) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error("a ' is not closed");
      add(line.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && (line[j + 1] === '"' || line[j + 1] === "\\")) j++;
        s += line[j];
      }
      if (j >= line.length) throw new Error('a " is not closed');
      add(s);
      i = j + 1;
    } else if (c === "\\" && i + 1 < line.length) {
      add(line[i + 1]!);
      i += 2;
    } else {
      add(c);
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * Reads notify.conf: `EVENT = COMMAND` lines (`#` starts a comment line). A missing file is no commands; a
 * line that cannot be used is reported through `warn` and skipped.
 */
export async function readNotifyConf(
  file: string,
  warn: (message: string) => void,
): Promise<Map<NotifyEvent, NotifyCommand>> {
  const commands = new Map<NotifyEvent, NotifyCommand>();
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") warn(`${file}: ${(error as Error).message}`);
    return commands;
  }
  const lines = text.split("\n");
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const where = `${file}:${i + 1}`;
    const m = /^([\w.-]+)\s*=\s*(.*)$/.exec(line);
    if (!m) {
      warn(`${where}: expected EVENT = COMMAND`);
      continue;
    }
    const event = m[1]!;
    if (!Object.hasOwn(NOTIFY_EVENTS, event)) {
      warn(`${where}: no event '${event}' (there is: ${Object.keys(NOTIFY_EVENTS).join(", ")})`);
      continue;
    }
    let words: string[];
    try {
      words = splitWords(m[2]!);
    } catch (error) {
      warn(`${where}: ${(error as Error).message}`);
      continue;
    }
    if (words.length === 0) {
      warn(`${where}: ${event} has no command`);
      continue;
    }
    const known: readonly string[] = NOTIFY_EVENTS[event as NotifyEvent];
    const unknown = words
      .flatMap((w) => [...w.matchAll(/\{(\w+)\}/g)].map((p) => p[1]!))
      .filter((p) => !known.includes(p));
    if (unknown.length > 0) {
      warn(`${where}: ${event} knows no {${unknown[0]}} (it has {${known.join("}, {")}})`);
      continue;
    }
    commands.set(event as NotifyEvent, { line: i + 1, words });
  }
  return commands;
}

/**
 * The command's words with each `{placeholder}` replaced by its value — inside the word it is in, so a value
 * never becomes more words, an option of its own or shell syntax: nothing is run through a shell.
 */
export function fillWords(words: readonly string[], values: Record<string, string | number>): string[] {
  return words.map((w) =>
    w.replace(/\{(\w+)\}/g, (whole, name: string) =>
      // A value as a notification may show it: on one line, without control characters, not too long.
      Object.hasOwn(values, name) ? oneLine(String(values[name]), MAX_FIELD) : whole,
    ),
  );
}

export interface NotifierOptions {
  /** The notify.conf to read (again at every notification, so an edit takes effect at once). */
  file: string;
  log: { info(m: string): void; warn(m: string): void; debug(m: string): void };
}

/**
 * Runs notify.conf's command for an event, as the user running olliesrv and outside any sandbox, with the
 * daemon's environment (so a desktop notifier finds the session bus). It never throws: a missing file does
 * nothing, and a command that cannot start, fails or takes longer than 10 s (it is killed then) is logged.
 */
export class Notifier {
  constructor(private readonly options: NotifierOptions) {}

  async bypass(notice: BypassNotice): Promise<void> {
    const { file, log } = this.options;
    try {
      const command = (await readNotifyConf(file, log.warn)).get("bypass");
      if (!command) return;
      const [program, ...args] = fillWords(command.words, { ...notice });
      const where = `${file}:${command.line}`;
      const result = await execa(program!, args, {
        reject: false,
        stdin: "ignore",
        timeout: NOTIFY_TIMEOUT_MS,
        forceKillAfterDelay: 1000,
      });
      if (result.failed) {
        const why = result.timedOut
          ? `took longer than ${NOTIFY_TIMEOUT_MS / 1000} s and was killed`
          : result.exitCode === undefined
            ? ((result.cause as Error | undefined)?.message ?? `was killed by ${result.signal}`)
            : `exited ${result.exitCode}${String(result.stderr).trim() ? `: ${String(result.stderr).trim().split("\n")[0]}` : ""}`;
        log.warn(`${where}: the bypass notification for request ${notice.id} (${program}) ${why}`);
      } else {
        log.debug(`${where}: notified of bypass request ${notice.id}`);
      }
    } catch (error) {
      log.warn(
        `${file}: the bypass notification for request ${notice.id} failed: ${(error as Error).message}`,
      );
    }
  }
}
