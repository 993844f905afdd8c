import { isLogThreshold, LOG_THRESHOLDS, type LogThreshold } from "./levels.js";
import { isLogName, NAME_RULE } from "./names.js";

/** Which lines a logger writes: one threshold for everything, and exceptions by category. */
export interface LogSettings {
  /** For lines without a category, and for every category not in `categories`. */
  readonly level: LogThreshold;
  readonly categories: ReadonlyMap<string, LogThreshold>;
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
 * Parses `SETTING[,SETTING]...`, where a setting is a threshold (`error`, `warn`, `info`, `debug`, `trace`,
 * `silent`) for everything, or `CATEGORY=THRESHOLD` for one category. A category's own setting beats the
 * bare threshold wherever it stands; of two settings for the same thing the later wins. Case and spaces
 * around words do not matter. A category nobody logs under is accepted, so that one `$OLLIE_LOG` can serve
 * several programs. Throws LogSettingsError naming the word at fault.
 */
export function parseLogSettings(text: string, source: string): LogSettings {
  let level = DEFAULT_LOG_SETTINGS.level;
  const categories = new Map<string, LogThreshold>();
  for (const setting of text.split(",")) {
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
 * The settings a daemon runs with: its `--log-level` value when one was given, else `$OLLIE_LOG` when it is
 * set and not empty, else `info` for everything.
 */
export function resolveLogSettings(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): LogSettings {
  if (flag !== undefined) return parseLogSettings(flag, "--log-level");
  const fromEnv = env.OLLIE_LOG;
  if (fromEnv !== undefined && fromEnv !== "") return parseLogSettings(fromEnv, "$OLLIE_LOG");
  return DEFAULT_LOG_SETTINGS;
}

/** `settings` with `category` at `threshold`: what a shorthand flag such as a daemon's `-D` adds. */
export function withCategory(settings: LogSettings, category: string, threshold: LogThreshold): LogSettings {
  return { level: settings.level, categories: new Map([...settings.categories, [category, threshold]]) };
}

/** The threshold lines of `category` (none: the uncategorised lines) are held to. */
export function thresholdFor(settings: LogSettings, category: string | undefined): LogThreshold {
  return (category === undefined ? undefined : settings.categories.get(category)) ?? settings.level;
}
