import { describe, expect, it } from "vitest";
import { batchLines, cutLine, LineBatch } from "./line-batch.js";

const filled = (n: number, limits = { maxLines: 6, maxBytes: 10_000 }) => {
  const b = new LineBatch(limits);
  for (let i = 1; i <= n; i++) b.add(`line ${i}`);
  return b;
};

describe("a batch of lines", () => {
  it("keeps every line while they fit", () => {
    const b = filled(6);
    expect(b.full).toBe(true);
    expect(batchLines(b.take())).toEqual([1, 2, 3, 4, 5, 6].map((i) => `line ${i}`));
    expect(b.size).toBe(0);
  });

  it("keeps the first and the last lines of a burst, and counts those between", () => {
    const batch = filled(10).take();
    expect(batch).toMatchObject({ total: 10, leftOut: 4, leftOutBytes: 28, cut: 3 });
    expect(batchLines(batch)).toEqual([
      "line 1",
      "line 2",
      "line 3",
      "[… 4 lines (28 bytes) left out …]",
      "line 8",
      "line 9",
      "line 10",
    ]);
  });

  it("keeps to its bytes too, and cuts a line longer than half of them", () => {
    const b = new LineBatch({ maxLines: 100, maxBytes: 1024 });
    b.add("x".repeat(5000));
    for (let i = 0; i < 20; i++) b.add("y".repeat(99));
    const batch = b.take();
    const kept = batchLines(batch);
    expect(kept[0]).toMatch(/^x+… \[\d+ bytes cut\]$/);
    expect(Buffer.byteLength(kept.join("\n"))).toBeLessThan(1100);
    expect(batch.total).toBe(21);
    expect(batch.leftOut).toBeGreaterThan(0);
  });

  it("never cuts a character in half", () => {
    const cut = cutLine("é".repeat(100), 81);
    expect(cut).not.toContain("\uFFFD");
    expect(cut).toMatch(/^é+… \[\d+ bytes cut\]$/);
  });
});
