import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readJsonString, stringLiteralAt } from "./json-scan.js";

describe("readJsonString", () => {
  it("reads back any string JSON.stringify wrote, whatever follows it", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string(), (value, after) => {
        const literal = JSON.stringify(value);
        const read = readJsonString(`${literal}${after}`, 0);
        expect(read).toEqual({ value, end: literal.length });
      }),
      { numRuns: 2000 },
    );
  });

  it("decodes escapes that come before the last character", () => {
    expect(readJsonString('"\\\\ x"', 0)).toEqual({ value: "\\ x", end: 6 });
    expect(readJsonString('"a\\"b"}', 0)).toEqual({ value: 'a"b', end: 6 });
  });

  it("finds no literal where the quote is missing, unclosed or badly escaped", () => {
    expect(readJsonString("abc", 0)).toBeUndefined();
    expect(readJsonString('"abc', 0)).toBeUndefined();
    expect(readJsonString('"a\\"', 0)).toBeUndefined();
    expect(readJsonString('"\\q"', 0)).toBeUndefined();
  });
});

describe("stringLiteralAt", () => {
  it("reads a literal only where it closes exactly at the given quote", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (value) => {
        const data = `{"a":${JSON.stringify(value)}}`;
        expect(stringLiteralAt(data, 5, data.length - 2)).toBe(value);
        expect(stringLiteralAt(data, 5, data.length - 1)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });
});
