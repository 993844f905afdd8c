import { describe, expect, it } from "vitest";
import { EventBus, parseTopicFilter } from "./event-bus.js";

const topics = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).topic as string);

describe("a topic filter", () => {
  it("takes patterns where * stands for any run of characters, dots included", () => {
    const pass = parseTopicFilter("agent.*.state, *.tool\nsession.kill")!;
    expect(pass("agent.main.state")).toBe(true);
    expect(pass("agent.main.tool")).toBe(true);
    expect(pass("session.kill")).toBe(true);
    expect(pass("agent.main.call")).toBe(false);
    expect(pass("session.killed")).toBe(false);
    expect(pass("agentxmainxstate")).toBe(false);
    expect(parseTopicFilter(" \n")).toBeUndefined();
    expect(() => parseTopicFilter("agent.(main)")).toThrow("'agent.(main)' is not a topic pattern");
  });
});

describe("an event bus", () => {
  it("gives each subscriber the events from its subscription on that pass its filter, then the end", async () => {
    const bus = new EventBus();
    bus.publish("agent.main.state", { state: "lost" });
    const all = bus.subscribe();
    const states = bus.subscribe();
    bus.publish("agent.main.user", { text: "hi" });
    states.setFilter(parseTopicFilter("*.state"));
    bus.publish("agent.main.state", { state: "thinking", error: new Error("as its message") });
    const signal = new AbortController().signal;
    expect(topics((await all.next(signal))!)).toEqual(["agent.main.user", "agent.main.state"]);
    const line = JSON.parse((await states.next(signal))!);
    expect(line).toMatchObject({
      topic: "agent.main.state",
      seq: 2,
      state: "thinking",
      error: "as its message",
    });
    expect(line.time).toMatch(/Z$/);
    const waiting = states.next(signal);
    bus.end("session.kill");
    // Its filter does not pass session.kill: it learns of the end as the end.
    expect(await waiting).toBeUndefined();
    expect(topics((await all.next(signal))!)).toEqual(["session.kill"]);
    expect(bus.size).toBe(0);
  });

  it("drops the oldest events of a subscriber that falls behind, and says how many", async () => {
    const bus = new EventBus();
    const slow = bus.subscribe(3);
    for (let i = 0; i < 5; i++) bus.publish("agent.main.assistant", { delta: String(i) });
    const lines = (await slow.next(new AbortController().signal))!.split("\n").filter(Boolean);
    expect(JSON.parse(lines[0]!)).toMatchObject({ topic: "events.dropped", count: 2 });
    expect(lines.slice(1).map((l) => JSON.parse(l).delta)).toEqual(["2", "3", "4"]);
  });

  it("stops a waiting read when its signal aborts", async () => {
    const sub = new EventBus().subscribe();
    const controller = new AbortController();
    const read = sub.next(controller.signal);
    controller.abort(new Error("flushed"));
    await expect(read).rejects.toThrow("flushed");
  });
});
