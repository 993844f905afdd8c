import { describe, expect, it } from "vitest";
import { targetPosition } from "./target-position.js";

const text = "import { greet } from './greet';\nconst greeting = greet('you');\n";

describe("the position a call points at", () => {
  it("takes 1-based line and column", () => {
    expect(targetPosition("a.ts", text, { line: 2, column: 18 })).toEqual({ line: 1, character: 17 });
  });

  it("finds a symbol as a whole word on its line, or where the file declares it, or its first use", () => {
    expect(targetPosition("a.ts", text, { line: 2, symbol: "greet" })).toEqual({ line: 1, character: 17 });
    const declared = [
      {
        name: "greeting",
        kind: 13 as const,
        range: { start: { line: 1, character: 0 }, end: { line: 1, character: 30 } },
        selectionRange: { start: { line: 1, character: 6 }, end: { line: 1, character: 14 } },
      },
    ];
    expect(targetPosition("a.ts", text, { symbol: "greeting" }, declared)).toEqual({ line: 1, character: 6 });
    expect(targetPosition("a.ts", text, { symbol: "greet" }, declared)).toEqual({ line: 0, character: 9 });
  });

  it("says what is wrong", () => {
    expect(() => targetPosition("a.ts", text, { line: 9, column: 1 })).toThrow(
      "a.ts has 3 lines; line 9 is not one of them",
    );
    expect(() => targetPosition("a.ts", text, { line: 1, symbol: "greeting" })).toThrow(
      "'greeting' does not occur on line 1 of a.ts",
    );
    expect(() => targetPosition("a.ts", text, { symbol: "nope" })).toThrow("'nope' does not occur in a.ts");
    expect(() => targetPosition("a.ts", text, { line: 1 })).toThrow("give line and column");
  });
});
