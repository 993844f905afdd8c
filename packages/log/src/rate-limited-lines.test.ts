import { describe, expect, it, vi } from "vitest";
import { RateLimitedLines } from "./rate-limited-lines.js";

describe("RateLimitedLines", () => {
  it("logs a few refusals per source in a window and sums up the rest when it ends", () => {
    vi.useFakeTimers();
    try {
      const lines: string[] = [];
      const trail = new RateLimitedLines((l) => lines.push(l), 3, 100);
      for (let i = 0; i < 5000; i++)
        trail.record(`refused attach as eve from unix: authentication failed`, "unix");
      trail.record("refused cd by a.main", "a.main");
      expect(lines).toHaveLength(4);
      vi.advanceTimersByTime(100);
      expect(lines.at(-1)).toBe("… and 4,997 more refusals from unix in the last 0.1 s");
      trail.record("refused attach as eve from unix: authentication failed", "unix");
      expect(lines).toHaveLength(6);
    } finally {
      vi.useRealTimers();
    }
  });
});
