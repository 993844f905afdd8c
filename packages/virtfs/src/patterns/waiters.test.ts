import { describe, expect, it } from "vitest";
import { Waiters } from "./waiters.js";

describe("Waiters", () => {
  it("wakes every wait at the next wake, and no later one", async () => {
    const w = new Waiters();
    const woken = [w.wait(), w.wait()];
    expect(w.size).toBe(2);
    w.wake();
    await Promise.all(woken);
    expect(w.size).toBe(0);
    let later = false;
    void w.wait().then(() => {
      later = true;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(later).toBe(false);
  });

  it("rejects a wait with its signal's reason when it aborts, leaving nothing behind", async () => {
    const w = new Waiters();
    const stop = new AbortController();
    const waiting = w.wait(stop.signal);
    stop.abort(new Error("flushed"));
    await expect(waiting).rejects.toThrow("flushed");
    expect(w.size).toBe(0);
    await expect(w.wait(stop.signal)).rejects.toThrow("flushed");
  });

  it("takes a request's onAbort as well as a signal, and stops listening once woken", async () => {
    const w = new Waiters();
    const listeners = new Set<(reason: unknown) => void>();
    const request = {
      onAbort(listener: (reason: unknown) => void) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const woken = w.wait(request);
    expect(listeners.size).toBe(1);
    w.wake();
    await woken;
    expect(listeners.size).toBe(0);
    const flushed = w.wait(request);
    for (const l of listeners) l(new Error("flushed"));
    await expect(flushed).rejects.toThrow("flushed");
    expect(w.size).toBe(0);
  });

  it("rejects every wait, now and later, after fail", async () => {
    const w = new Waiters();
    const waiting = w.wait();
    w.fail(new Error("session killed"));
    await expect(waiting).rejects.toThrow("session killed");
    await expect(w.wait()).rejects.toThrow("session killed");
    expect(w.failed?.message).toBe("session killed");
  });
});
