import { describe, expect, it } from "vitest";
import { LineSplitter } from "./each-line.js";

describe("splitting a stream into lines", () => {
  it("joins lines and characters split between chunks, drops a CR before LF, and keeps a last partial line", () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l), 1000);
    const bytes = Buffer.from("one\r\ntw€o\n\nthree");
    for (const b of bytes) s.write(Buffer.from([b]));
    s.end();
    expect(lines).toEqual(["one", "tw€o", "", "three"]);
  });

  it("hands over a line that grows too long without ending", () => {
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l), 10);
    s.write("a".repeat(25));
    expect(lines).toEqual(["a".repeat(25)]);
  });
});
