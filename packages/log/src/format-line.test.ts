import { describe, expect, it } from "vitest";
import { escapeControls, formatLine } from "./format-line.js";
import { LOG_LEVELS, type LogLevel } from "./levels.js";

const time = new Date("2026-11-30T21:40:00.123Z");

describe("a log line", () => {
  it("is time, level, program[category] and message", () => {
    expect(
      formatLine({ time, level: "warn", program: "olliesrv", category: "audit", message: "refused" }),
    ).toBe("2026-11-30T21:40:00.123Z WARN  olliesrv[audit]: refused\n");
    expect(
      formatLine({ time, level: "info", program: "toolsrv", category: undefined, message: "serving" }),
    ).toBe("2026-11-30T21:40:00.123Z INFO  toolsrv: serving\n");
  });

  it("lines its messages up whatever the level", () => {
    const column = (level: LogLevel) =>
      formatLine({ time, level, program: "p", category: undefined, message: "m" }).indexOf("p: m");
    expect(new Set(LOG_LEVELS.map(column))).toEqual(new Set([31]));
  });

  it("drops a message's trailing line breaks and escapes every other one", () => {
    const line = formatLine({
      time,
      level: "info",
      program: "olliesrv",
      category: undefined,
      message: "a\nb\r\n",
    });
    expect(line).toBe("2026-11-30T21:40:00.123Z INFO  olliesrv: a\\nb\n");
  });
});

describe("escaping control characters", () => {
  it("names \\n, \\r and \\t and writes the rest as \\xNN or \\uNNNN", () => {
    expect(escapeControls("a\nb\rc\td")).toBe("a\\nb\\rc\\td");
    expect(escapeControls("\x1b[31mred\x00\x7f\x85")).toBe("\\x1b[31mred\\x00\\x7f\\x85");
    expect(escapeControls("x\u2028y\u2029z")).toBe("x\\u2028y\\u2029z");
    expect(escapeControls("admin\u202Etxt.exe\u200B")).toBe("admin\\u202etxt.exe\\u200b");
  });

  it("leaves other text alone, backslashes and non-ASCII letters included", () => {
    expect(escapeControls("C:\\dir — été 🙂")).toBe("C:\\dir — été 🙂");
  });
});
