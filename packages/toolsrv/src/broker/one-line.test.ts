import { describe, expect, it } from "vitest";
import { oneLine } from "./one-line.js";

describe("oneLine", () => {
  it("escapes what would break a line", () => {
    expect(oneLine("a\tb\nc\\d\u001b[31m")).toBe("a\\tb\\nc\\\\d\\x1b[31m");
    expect(oneLine(42)).toBe("42");
  });
});
