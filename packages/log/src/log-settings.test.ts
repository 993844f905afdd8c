import { describe, expect, it } from "vitest";
import {
  DEFAULT_LOG_SETTINGS,
  LogSettingsError,
  levelsOnly,
  parseLogSettings,
  resolveLogSettings,
  splitLogValue,
  thresholdFor,
  withCategory,
} from "./log-settings.js";

const parse = (text: string) => parseLogSettings(text, "$OLLIE_LOG");

describe("the $OLLIE_LOG grammar", () => {
  it("takes a threshold for everything", () => {
    for (const t of ["error", "warn", "info", "debug", "trace", "silent"] as const)
      expect(parse(t)).toEqual({ level: t, categories: new Map() });
  });

  it("takes CATEGORY=THRESHOLD settings beside it, whose own setting wins wherever it stands", () => {
    const s = parse("audit=warn, info ,9p=trace,debug");
    expect(s.level).toBe("debug");
    expect(thresholdFor(s, "audit")).toBe("warn");
    expect(thresholdFor(s, "9p")).toBe("trace");
    expect(thresholdFor(s, "sessions")).toBe("debug");
    expect(thresholdFor(s, undefined)).toBe("debug");
  });

  it("lets the later of two settings for the same thing win, and ignores case", () => {
    const s = parse("WARN,Audit=Debug,audit=error");
    expect(s).toEqual({ level: "warn", categories: new Map([["audit", "error"]]) });
  });

  it("defaults to info for everything when only categories are set", () => {
    expect(thresholdFor(parse("9p=trace"), undefined)).toBe("info");
  });
});

describe("a setting that breaks the grammar", () => {
  const fails = (text: string) => {
    try {
      parse(text);
    } catch (error) {
      expect(error).toBeInstanceOf(LogSettingsError);
      return error as LogSettingsError;
    }
    throw new Error(`'${text}' was accepted`);
  };

  it("is refused, naming the word that is not a level and where it came from", () => {
    const e = fails("info,audit=verbose");
    expect(e.word).toBe("verbose");
    expect(e.source).toBe("$OLLIE_LOG");
    expect(e.message).toBe("$OLLIE_LOG: 'verbose' is not a level (error, warn, info, debug, trace, silent)");
    expect(fails("loud").message).toContain("'loud' is not a level");
    expect(fails("audit=").message).toContain("'' is not a level");
  });

  it("is refused, naming a category that cannot be one", () => {
    const e = fails("a udit=warn");
    expect(e.word).toBe("a udit");
    expect(e.message).toBe(
      "$OLLIE_LOG: 'a udit' in 'a udit=warn' is not a category name (lowercase letters, digits, '_' and '-')",
    );
    expect(fails("=warn").message).toContain("'' in '=warn' is not a category name");
  });

  it("is refused when a setting is empty", () => {
    expect(fails("info,,audit=warn").message).toBe(
      "$OLLIE_LOG: 'info,,audit=warn' has an empty setting (separate settings with one ',')",
    );
    expect(fails("").message).toContain("has an empty setting");
  });
});

describe("where the settings come from", () => {
  it("is --log-level, else $OLLIE_LOG, else info", () => {
    expect(resolveLogSettings("debug", { OLLIE_LOG: "error" }).level).toBe("debug");
    expect(resolveLogSettings(undefined, { OLLIE_LOG: "error" }).level).toBe("error");
    expect(resolveLogSettings(undefined, { OLLIE_LOG: "" })).toBe(DEFAULT_LOG_SETTINGS);
    expect(resolveLogSettings(undefined, {})).toEqual({ level: "info", categories: new Map() });
  });

  it("names the flag or the variable in an error", () => {
    expect(() => resolveLogSettings("nope", {})).toThrow("--log-level: 'nope' is not a level");
    expect(() => resolveLogSettings(undefined, { OLLIE_LOG: "nope" })).toThrow(
      "$OLLIE_LOG: 'nope' is not a level",
    );
  });

  it("can have one category set on top, as -D does, leaving the rest", () => {
    const base = parseLogSettings("warn,audit=error", "--log-level");
    const traced = withCategory(base, "9p", "trace");
    expect(traced).toEqual({
      level: "warn",
      categories: new Map([
        ["audit", "error"],
        ["9p", "trace"],
      ]),
    });
    expect(base.categories.has("9p")).toBe(false);
  });
});

describe("a log file in the value", () => {
  it("is the part from the first setting with a '/' to the end, commas and all", () => {
    expect(splitLogValue("info,audit=warn")).toEqual({ levels: "info,audit=warn", file: undefined });
    expect(splitLogValue("/var/log/ollie.log")).toEqual({ levels: undefined, file: "/var/log/ollie.log" });
    expect(splitLogValue("warn,9p=trace, ./logs/a,b=c.log")).toEqual({
      levels: "warn,9p=trace",
      file: "./logs/a,b=c.log",
    });
    expect(splitLogValue("~/ollie.log")).toEqual({ levels: undefined, file: "~/ollie.log" });
    expect(levelsOnly("debug,/tmp/x.log")).toBe("debug");
    expect(levelsOnly("/tmp/x.log")).toBeUndefined();
    expect(levelsOnly(undefined)).toBeUndefined();
  });

  it("goes with the levels beside it, or info when there are none", () => {
    expect(parse("warn,9p=trace,/var/log/ollie.log")).toEqual({
      level: "warn",
      categories: new Map([["9p", "trace"]]),
      file: "/var/log/ollie.log",
    });
    expect(parse("/var/log/ollie.log")).toEqual({ ...DEFAULT_LOG_SETTINGS, file: "/var/log/ollie.log" });
    expect(() => parse("loud,/var/log/ollie.log")).toThrow("$OLLIE_LOG: 'loud' is not a level");
    expect(() => parse("info,,/var/log/ollie.log")).toThrow("has an empty setting");
  });

  it("comes from --log-level, else $OLLIE_LOG, apart from the levels, with ~/ for $HOME", () => {
    const env = { OLLIE_LOG: "error,~/ollie.log", HOME: "/home/glenda" };
    expect(resolveLogSettings(undefined, env)).toEqual({
      level: "error",
      categories: new Map(),
      file: "/home/glenda/ollie.log",
    });
    expect(resolveLogSettings("debug", env)).toEqual({
      level: "debug",
      categories: new Map(),
      file: "/home/glenda/ollie.log",
    });
    expect(resolveLogSettings("/tmp/other.log", env)).toEqual({
      level: "error",
      categories: new Map(),
      file: "/tmp/other.log",
    });
    // Levels from the flag leave $OLLIE_LOG's unread, as before: only its file counts.
    expect(resolveLogSettings("warn", { OLLIE_LOG: "nope,/tmp/x.log" })).toEqual({
      level: "warn",
      categories: new Map(),
      file: "/tmp/x.log",
    });
    expect(resolveLogSettings("warn", { OLLIE_LOG: "error" })).toEqual({
      level: "warn",
      categories: new Map(),
    });
  });

  it("stays when -D adds a category", () => {
    expect(withCategory(parse("warn,/tmp/x.log"), "9p", "trace").file).toBe("/tmp/x.log");
  });
});
