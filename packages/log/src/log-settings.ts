import { isLogThreshold, LOG_THRESHOLDS, type LogThreshold } from "./levels.js";
import { isLogName, NAME_RULE } from "./names.js";

/**
 * Which lines a logger writes: one threshold for everything, and exceptions by category — and where they go:
 * a file (appended to), when `file` is set, else the logger's stream (standard error).
 */
export interface LogSettings {
  /** For lines without a category, and for every category not in `categories`. */
  readonly level: LogThreshold;
  readonly categories: ReadonlyMap<string, LogThreshold>;
  /** The log file, as given (`~/` stands for $HOME once resolved); absent: the stream, stderr by default. */
  readonly file?: string;
}

export const DEFAULT_LOG_SETTINGS: LogSettings = { level: "info", categories: new Map() };

/** A `--log-level` or `$OLLIE_LOG` value that does not follow the grammar; `word` is the part at fault. */
export class LogSettingsError extends Error {
  override readonly name = "LogSettingsError";
  constructor(
    /** Where the text came from, as the user knows it: `--log-level`, `$OLLIE_LOG`. */
    readonly source: string,
    readonly word: string,
    problem: string,
  ) {
    super(`${source}: ${problem}`);
  }
}

/**
 * Splits a `--log-level` or `$OLLIE_LOG` value into its level settings and the log file it names, checking
 * neither: the file starts at the first comma-separated part that holds a `/` and runs to the end of the
 * value (commas included), so `/var/log/ollie.log`, `./ollie.log` and `warn,9p=trace,~/ollie.log` all name
 * one. No level setting has a `/`, so a value without one is levels alone, as it always was.
 */
export function splitLogValue(text: string): { levels: string | undefined; file: string | undefined } {
  const slash = text.indexOf("/");
  if (slash < 0) return { levels: text, file: undefined };
  const start = text.lastIndexOf(",", slash) + 1;
  const file = text.slice(start).trim();
  const levels = start === 0 ? undefined : text.slice(0, start - 1);
  return { levels, file };
}

/**
 * Parses `SETTING[,SETTING]...[,FILE]`, where a setting is a threshold (`error`, `warn`, `info`, `debug`,
 * `trace`, `silent`) for everything, or `CATEGORY=THRESHOLD` for one category, and FILE (anything with a
 * `/`, see splitLogValue) is where lines go instead of the stream. A category's own setting beats the bare
 * threshold wherever it stands; of two settings for the same thing the later wins. Case and spaces around
 * words do not matter. A category nobody logs under is accepted, so that one `$OLLIE_LOG` can serve several
 * programs. Throws LogSettingsError naming the word at fault.
 */
export function parseLogSettings(text: string, source: string): LogSettings {
  const { levels, file } = splitLogValue(text);
  const settings = levels === undefined ? DEFAULT_LOG_SETTINGS : parseLevels(levels, text, source);
  return file === undefined ? settings : { ...settings, file };
}

function parseLevels(levels: string, text: string, source: string): LogSettings {
  let level = DEFAULT_LOG_SETTINGS.level;
  const categories = new Map<string, LogThreshold>();
  for (const setting of levels.split(",")) {
    const word = setting.trim();
    if (word === "")
      throw new LogSettingsError(
        source,
        word,
        `'${text}' has an empty setting (separate settings with one ',')`,
      );
    const eq = word.indexOf("=");
    const thresholdWord = (eq < 0 ? word : word.slice(eq + 1)).trim();
    const threshold = thresholdWord.toLowerCase();
    if (!isLogThreshold(threshold))
      throw new LogSettingsError(
        source,
        thresholdWord,
        `'${thresholdWord}' is not a level (${LOG_THRESHOLDS.join(", ")})`,
      );
    if (eq < 0) {
      level = threshold;
      continue;
    }
    const categoryWord = word.slice(0, eq).trim();
    const category = categoryWord.toLowerCase();
    if (!isLogName(category))
      throw new LogSettingsError(
        source,
        categoryWord,
        `'${categoryWord}' in '${word}' is not a category name (${NAME_RULE})`,
      );
    categories.set(category, threshold);
  }
  return { level, categories };
}

/**
 * The settings a daemon runs with. The levels: those of its `--log-level` value when it gives some, else
 * those of `$OLLIE_LOG` when it is set and gives some, else `info` for everything. The file: the one
 * `--log-level` names, else the one `$OLLIE_LOG` names, else none (the stream). So
 * `OLLIE_LOG=/var/log/ollie.log daemon --log-level debug` logs at debug to the file. A leading `~/` of the
 * file stands for `$HOME`.
 */
export function resolveLogSettings(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): LogSettings {
  const fromEnv = env.OLLIE_LOG === "" ? undefined : env.OLLIE_LOG;
  const flagParts = flag === undefined ? undefined : splitLogValue(flag);
  const envParts = fromEnv === undefined ? undefined : splitLogValue(fromEnv);
  const levels =
    flag !== undefined && flagParts?.levels !== undefined
      ? parseLogSettings(flag, "--log-level")
      : fromEnv !== undefined && envParts?.levels !== undefined
        ? parseLogSettings(fromEnv, "$OLLIE_LOG")
        : DEFAULT_LOG_SETTINGS;
  const file = flagParts?.file ?? envParts?.file;
  if (file === undefined) return levels.file === undefined ? levels : withoutFile(levels);
  const home = env.HOME;
  const expanded = file.startsWith("~/") && home ? `${home.replace(/\/$/, "")}${file.slice(1)}` : file;
  return { level: levels.level, categories: levels.categories, file: expanded };
}

const withoutFile = (s: LogSettings): LogSettings => ({ level: s.level, categories: s.categories });

/** `settings` with `category` at `threshold`: what a shorthand flag such as a daemon's `-D` adds. */
export function withCategory(settings: LogSettings, category: string, threshold: LogThreshold): LogSettings {
  return {
    level: settings.level,
    categories: new Map([...settings.categories, [category, threshold]]),
    ...(settings.file !== undefined && { file: settings.file }),
  };
}

/**
 * The level settings alone of a `--log-level` or `$OLLIE_LOG` value, as text (undefined when it gives
 * none): what a daemon passes to a child whose lines it relays into its own log, so the child does not
 * open the file too.
 */
export function levelsOnly(text: string | undefined): string | undefined {
  return text === undefined ? undefined : splitLogValue(text).levels;
}

/** The threshold lines of `category` (none: the uncategorised lines) are held to. */
export function thresholdFor(settings: LogSettings, category: string | undefined): LogThreshold {
  return (category === undefined ? undefined : settings.categories.get(category)) ?? settings.level;
}
