import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeRegExp, LITERAL, literalValue, readJsonString } from "./json-scan.js";

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

describe("LITERAL and literalValue", () => {
  const whole = new RegExp(`^${LITERAL}$`);
  it("match every literal JSON.stringify writes, and read its value back", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (value) => {
        const found = whole.exec(JSON.stringify(value));
        expect(found).not.toBeNull();
        expect(literalValue(found![1]!)).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });

  it("match nothing JSON.parse would refuse", () => {
    for (const bad of ['"a"b"', '"\\q"', '"\\u12"', '"tab\there"', '"unclosed', '"trailing\\"']) {
      expect(whole.exec(bad), bad).toBeNull();
      expect(() => JSON.parse(bad), bad).toThrow();
    }
  });
});

describe("escapeRegExp", () => {
  it("makes any text a pattern that matches exactly it", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(new RegExp(`^${escapeRegExp(text)}$`).test(text)).toBe(true);
        expect(new RegExp(`^${escapeRegExp(text)}$`).test(`${text}x`)).toBe(false);
      }),
    );
  });
});
