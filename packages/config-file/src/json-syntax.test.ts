import { describe, expect, it } from "vitest";
import { findJsonSyntaxError } from "./json-syntax.js";

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe("findJsonSyntaxError", () => {
  const samples = [
    "{}",
    "[]",
    '""',
    "0",
    "-0.5e+3",
    "true",
    "null",
    ' { "a" : [1, 2, {"b": "\\u00e9\\n"}] } ',
    "",
    "{",
    "[1,]",
    '{"a":}',
    '{"a" 1}',
    "{'a': 1}",
    "01",
    "1.",
    ".5",
    "tru",
    '"\\x"',
    '"a\nb"',
    "[1] 2",
    '{"a":1,}',
    '"\\u12"',
    "NaN",
    "[",
    '{"a":1',
    "-",
    "1e",
    "[1 2]",
    "\t\n 7 \r\n",
  ];
  for (const text of samples) {
    it(`agrees with JSON.parse on ${JSON.stringify(text)}`, () => {
      expect(findJsonSyntaxError(text) === undefined).toBe(parses(text));
    });
  }

  it("points at the first character that is wrong", () => {
    expect(findJsonSyntaxError('{"a": [1, 2,, 3]}')).toEqual({ offset: 12, problem: "expected a value" });
    expect(findJsonSyntaxError('{"a": 1} x')).toEqual({
      offset: 9,
      problem: "more text after the JSON value",
    });
  });
});

describe("findJsonSyntaxError on deep nesting", () => {
  it("stops at a depth no configuration has, without exhausting the stack", () => {
    expect(findJsonSyntaxError("[".repeat(100_000))).toEqual({ offset: 513, problem: "nested too deeply" });
  });
});
