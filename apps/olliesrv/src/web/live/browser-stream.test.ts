import { describe, expect, it } from "vitest";
import { BrowserStream, parseEventId, type StreamMessage } from "./browser-stream.js";

describe("BrowserStream", () => {
  it("gives a browser that comes back what it missed, in order", () => {
    const stream = new BrowserStream();
    const first: StreamMessage[] = [];
    const sink = (m: StreamMessage) => first.push(m);
    expect(stream.holds(0)).toBe(true);
    stream.attach(sink, 0, () => {});
    stream.send([{ op: "announce", text: "one" }]);
    stream.detach(sink);
    stream.send([{ op: "announce", text: "two" }]);
    stream.send([{ op: "announce", text: "three" }]);
    const again: StreamMessage[] = [];
    stream.attach(
      (m) => again.push(m),
      first.at(-1)!.seq,
      () => {},
    );
    expect(again.map((m) => JSON.parse(m.data)[0].text)).toEqual(["two", "three"]);
    expect(parseEventId(stream.eventId(again[1]!))).toEqual({ stream: stream.id, seq: 3 });
  });

  it("ends the connection it leaves for another, and no other", () => {
    const stream = new BrowserStream();
    const ended: string[] = [];
    const a = () => {};
    const b = () => {};
    stream.attach(a, 0, () => ended.push("a"));
    stream.attach(b, 0, () => ended.push("b"));
    expect(ended).toEqual(["a"]);
    expect(stream.detach(a)).toBe(false);
    expect(stream.attached).toBe(true);
    stream.close();
    expect(ended).toEqual(["a", "b"]);
  });

  it("refuses to go on from a message it no longer holds", () => {
    const stream = new BrowserStream();
    for (let i = 0; i < 5000; i++) stream.send([{ op: "announce", text: String(i) }]);
    expect(stream.holds(10)).toBe(false);
    expect(stream.holds(4999)).toBe(true);
    expect(stream.holds(6000)).toBe(false);
  });

  it("reads only its own ids", () => {
    expect(parseEventId("abc.1")).toBeUndefined();
    expect(parseEventId(undefined)).toBeUndefined();
    expect(parseEventId("AAAAAAAAAAAAAAAA.12")).toEqual({ stream: "AAAAAAAAAAAAAAAA", seq: 12 });
  });
});
