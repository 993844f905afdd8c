import { describe, expect, it } from "vitest";
import type { Session } from "./session.js";
import { SessionIndex } from "./session-index.js";

/** A session as the index reads it: id, name, the main agent's state, cwd. */
function fakeSession(id: string, name: string, state = "idle", cwd = "/w"): Session {
  const shown = { state: { get: () => state } };
  return { id, name, cwd, agents: new Map([["main", { shown }]]) } as unknown as Session;
}

describe("SessionIndex", () => {
  it("shows one line per session: id, name, the main agent's state, cwd", () => {
    const index = new SessionIndex(() => [
      fakeSession("a", "first", "thinking"),
      fakeSession("b", "b", "idle", "/x"),
    ]);
    expect(index.get()).toBe("a\tfirst\tthinking\t/w\nb\tb\tidle\t/x\n");
  });

  it("wakes a waiting reader when the text changed, and not when it did not", async () => {
    const sessions = [fakeSession("a", "first")];
    const index = new SessionIndex(() => sessions);
    const before = index.get();
    let woken = false;
    const changed = index.changed().then(() => {
      woken = true;
    });
    index.touched();
    await Promise.resolve();
    expect(woken).toBe(false);
    expect(index.waiting).toBe(1);
    sessions.push(fakeSession("b", "second"));
    index.touched();
    await changed;
    expect(index.get()).not.toBe(before);
    expect(index.waiting).toBe(0);
  });

  it("shows a change made while nobody waited at the next look, and counts it", () => {
    const sessions = [fakeSession("a", "first")];
    const index = new SessionIndex(() => sessions);
    const version = index.version;
    sessions.push(fakeSession("b", "second"));
    index.touched();
    expect(index.get()).toBe("a\tfirst\tidle\t/w\nb\tsecond\tidle\t/w\n");
    expect(index.version).toBe(version + 1);
  });

  it("lets a waiter go when its signal aborts, leaving nothing behind", async () => {
    const index = new SessionIndex(() => []);
    const abort = new AbortController();
    const changed = index.changed(abort.signal);
    expect(index.waiting).toBe(1);
    abort.abort(new Error("flushed"));
    await expect(changed).rejects.toThrow("flushed");
    expect(index.waiting).toBe(0);
  });
});
