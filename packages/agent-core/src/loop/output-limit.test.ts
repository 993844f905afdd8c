import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capOutput } from "./output-limit.js";

describe("capOutput", () => {
  it("leaves output within the limit alone", () => {
    expect(capOutput("short", 100)).toBe("short");
  });

  it("keeps whole characters at both cuts and stays near the limit, whatever the text", () => {
    fc.assert(
      fc.property(
        fc
          .string({ unit: "grapheme", minLength: 50, maxLength: 400 })
          .filter((t) => Buffer.from(t).toString() === t && !t.includes("\uFFFD")),
        fc.integer({ min: 16, max: 200 }),
        (text, limit) => {
          const out = capOutput(text, limit);
          if (Buffer.byteLength(text) <= limit) {
            expect(out).toBe(text);
            return;
          }
          expect(out).not.toContain("\uFFFD");
          const [head, tail] = out.split(
            /\n\[output truncated: [\d,]+ of [\d,]+ bytes cut from the middle\]\n/,
          );
          expect(text.startsWith(head!)).toBe(true);
          expect(text.endsWith(tail!)).toBe(true);
          expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 500 },
    );
  });
});
