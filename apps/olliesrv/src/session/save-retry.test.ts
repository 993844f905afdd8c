import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SaveRetry } from "./save-retry.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A SaveRetry over a save that fails while `full`, and the lines it logged. */
function retrying() {
  const lines: string[] = [];
  const state = { full: true, saves: 0 };
  const log = {
    error: (l: string) => lines.push(`ERROR ${l}`),
    warn: (l: string) => lines.push(`WARN ${l}`),
    info: (l: string) => lines.push(`INFO ${l}`),
  };
  const retry: SaveRetry = new SaveRetry(
    "session s1",
    async () => {
      state.saves++;
      if (state.full) {
        retry.failed(new Error("ENOSPC: no space left on device"));
        throw new Error("ENOSPC");
      }
      retry.succeeded();
    },
    log,
    { firstMs: 1000, maxMs: 8000 },
  );
  return { retry, lines, state };
}

describe("saving again after a failed save", () => {
  it("logs the first failure once, tries again with backoff, and says when a save works, with the count", async () => {
    const { retry, lines, state } = retrying();
    retry.failed(new Error("ENOSPC: no space left on device"));
    expect(lines).toEqual([
      "ERROR session s1 could not be saved: ENOSPC: no space left on device; what it holds stays in memory and is saved as soon as a save works (tried again from 1 s, backing off to 8 s)",
    ]);
    // Tries at 1, 3, 7, 15 and 23 s: the delay doubles up to its cap.
    let now = 0;
    for (const [at, saves] of [
      [999, 0],
      [1000, 1],
      [3000, 2],
      [7000, 3],
      [15_000, 4],
      [23_000, 5],
    ] as const) {
      await vi.advanceTimersByTimeAsync(at - now);
      now = at;
      expect(state.saves).toBe(saves);
    }
    state.full = false;
    await vi.advanceTimersByTimeAsync(8000);
    expect(state.saves).toBe(6);
    expect(lines.slice(1)).toEqual(["INFO session s1 saved again, after 6 failed save(s) in 31 s"]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.saves).toBe(6);
  });

  it("counts further failures at 10, 100, … and stops trying once stopped", async () => {
    const { retry, lines, state } = retrying();
    for (let i = 0; i < 100; i++) retry.failed(new Error("ENOSPC"));
    expect(lines.map((l) => l.slice(0, 45))).toEqual([
      "ERROR session s1 could not be saved: ENOSPC; ",
      "WARN session s1 still not saved: 10 failed sa",
      "WARN session s1 still not saved: 100 failed s",
    ]);
    retry.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.saves).toBe(0);
  });
});
