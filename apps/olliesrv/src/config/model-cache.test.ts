import type { BackendPool, ModelInfo } from "@ollie/backends";
import { createLogger } from "@ollie/log";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ModelCache } from "./model-cache.js";

/** A pool of one profile, `p`, whose model lists come from `list` (one call per fetch). */
function pool(list: () => Promise<ModelInfo[]>): BackendPool {
  return {
    conf: { profiles: new Map([["p", { name: "p" }]]), defaultProfile: "p", file: "backends.conf" },
    names: () => ["p"],
    profile: () => ({ name: "p" }),
    fresh: async () => ({ models: list }),
  } as unknown as BackendPool;
}

const lines: string[] = [];
const log = createLogger({ program: "olliesrv", stream: { write: (l: string) => lines.push(l) } });

afterEach(() => {
  vi.useRealTimers();
  lines.length = 0;
});

describe("a model cache", () => {
  it("asks again after a failure, waiting twice as long each time up to its limit, and says so once", async () => {
    vi.useFakeTimers();
    const asked: number[] = [];
    const list = vi.fn(async () => {
      asked.push(Date.now());
      throw new Error("connection refused");
    });
    const backends = pool(list);
    const cache = new ModelCache(() => backends, log, { retry: { firstMs: 1000, maxMs: 4000 } });
    cache.refresh();
    await expect(cache.models()).rejects.toThrow(
      "backend 'p' has not listed its models: connection refused; olliesrv asks again in 1 s",
    );
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000 + 4000);
    expect(asked.slice(1).map((t, i) => t - asked[i]!)).toEqual([1000, 2000, 4000, 4000]);
    expect(lines.filter((l) => l.includes("did not list"))).toHaveLength(1);
    cache.close();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(asked).toHaveLength(5);
  });

  it("drops what a fetch brings back after the profiles changed under it", async () => {
    let answer: ((models: ModelInfo[]) => void) | undefined;
    const old = pool(() => new Promise((resolve) => (answer = resolve)));
    const now = pool(async () => [{ id: "new-model" }]);
    let current = old;
    const cache = new ModelCache(() => current, log);
    cache.refresh();
    // The first fetch has asked the old profiles.
    await vi.waitFor(() => expect(answer).toBeDefined(), { timeout: 5000, interval: 5 });
    current = now;
    cache.refresh();
    answer!([{ id: "old-model" }]);
    expect(await cache.models()).toEqual([{ id: "new-model" }]);
    expect(cache.cached("p")).toEqual([{ id: "new-model" }]);
  });
});
