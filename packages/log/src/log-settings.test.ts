import { describe, expect, it } from "vitest";
import {
  DEFAULT_LOG_SETTINGS,
  LogSettingsError,
  parseLogSettings,
  resolveLogSettings,
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
