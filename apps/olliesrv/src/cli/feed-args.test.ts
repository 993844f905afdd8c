import { describe, expect, it } from "vitest";
import { OBSERVE_DEFAULTS, parseFeed, parseObserve } from "./feed-args.js";

describe("ollie feed's and observe's arguments", () => {
  it("takes everything after -- as the command, and the defaults otherwise", () => {
    expect(parseFeed(["S", "--window", "0.5", "--", "tail", "--window", "-f"])).toEqual({
      command: "feed",
      session: "S",
      source: { kind: "command", argv: ["tail", "--window", "-f"] },
      windowMs: 500,
      maxLines: 200,
      maxBytes: 16_384,
    });
    expect(parseFeed(["S", "--file", "app.log", "--max-lines", "5"]).source).toEqual({
      kind: "file",
      path: "app.log",
    });
    expect(parseFeed(["S"]).source).toEqual({ kind: "stdin" });
  });

  it("refuses what it cannot use, saying why", () => {
    expect(() => parseFeed([])).toThrow("feed needs a session");
    expect(() => parseFeed(["S", "--"])).toThrow("needs a command after --");
    expect(() => parseFeed(["S", "echo"])).toThrow("after --");
    expect(() => parseFeed(["S", "--file", "f", "--", "echo"])).toThrow("not both");
    expect(() => parseFeed(["S", "--window", "soon", "--", "echo"])).toThrow("--window takes seconds");
    expect(() => parseFeed(["S", "--max-lines", "0", "--", "echo"])).toThrow("--max-lines");
    expect(() => parseFeed(["S", "--max-bytes", "9000000", "--", "echo"])).toThrow("--max-bytes");
  });

  it("observes with the observer profile and the default topics, the session's end always among them", () => {
    expect(parseObserve(["S"])).toEqual({
      command: "observe",
      session: "S",
      profile: "observer",
      windowMs: 5000,
      keep: false,
      topics: `${OBSERVE_DEFAULTS.topics} session.kill`,
    });
    expect(parseObserve(["S", "reviewer", "--keep", "--topics", "*.tool"])).toMatchObject({
      profile: "reviewer",
      keep: true,
      topics: "*.tool session.kill",
    });
    expect(() => parseObserve(["S", "../x"])).toThrow("not a profile name");
    expect(() => parseObserve([])).toThrow("needs a session");
  });
});
