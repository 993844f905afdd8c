import { describe, expect, it } from "vitest";
import { oneLine, shorten } from "./one-line.js";

describe("oneLine", () => {
  it("keeps text on one line, and short", () => {
    expect(oneLine("a\nb\u2028c\u0007\td")).toBe("a b c d");
    expect(oneLine("é".repeat(300), 10)).toBe(`${"é".repeat(9)}…`);
  });

  it("makes one space of a run of spaces and control characters, and trims the ends", () => {
    expect(oneLine(" \r\n a \t  b\u001b[31m \n")).toBe("a b [31m");
  });
});

describe("shorten", () => {
  it("cuts at a character, not inside one, and leaves short text alone", () => {
    expect(shorten("abc", 3)).toBe("abc");
    expect(shorten("abcd", 3)).toBe("ab…");
    expect(shorten("😀😀😀", 3)).toBe("😀😀😀");
    expect(shorten("😀😀😀😀", 3)).toBe("😀😀…");
    expect(shorten("abc", 0)).toBe("…");
  });
});
