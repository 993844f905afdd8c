import type { OllieEvent } from "@ollie/client";
import { describe, expect, it } from "vitest";
import { eventLine } from "./event-line.js";

const time = "2026-12-01T10:20:30.456Z";
const me = "111-aaaaaa.main";

/** An event as the client reads it from a session's `events` (its time left out unless given). */
function record(topic: string, fields: Record<string, unknown>, at = ""): OllieEvent {
  const [kind, agent, type] = topic.split(".");
  const stamp = { topic, seq: 1, time: at };
  if (kind === "agent") return { ...fields, ...stamp, kind, agent, type } as OllieEvent;
  return { ...fields, ...stamp, kind: "session", type: agent } as OllieEvent;
}

describe("an event as an observer's line", () => {
  it("says who prompted, marking the observer's own messages", () => {
    const user = (text: string, from = "user") =>
      eventLine(record("agent.main.user", { text, from }, time), me);
    expect(user("Fix the tests")).toBe("10:20:30 main ← prompt: Fix the tests");
    expect(user(`[from=${me}]\nStop retrying.`)).toBe("10:20:30 main ← your own message: Stop retrying.");
    expect(user("[from=222-bbbbbb.main]\nA task\non two lines")).toBe(
      "10:20:30 main ← prompt from 222-bbbbbb.main: A task on two lines",
    );
  });

  it("gives a tool's call and result, a turn's end and an error on a line each", () => {
    const tool = eventLine(
      record(
        "agent.main.tool",
        {
          call: { name: "shell", arguments: { command: "make" } },
          result: { content: "make: *** No rule\nto make target", isError: true },
        },
        time,
      ),
      me,
    );
    expect(tool).toBe('10:20:30 main shell {"command":"make"} → FAILED: make: *** No rule to make target');
    expect(
      eventLine(
        record("agent.main.turn", { outcome: { status: "done", steps: 2, reply: { content: "Done." } } }),
        me,
      ),
    ).toBe("main turn ended: done after 2 step(s); last reply: Done.");
    const ended = (outcome: object) => eventLine(record("agent.main.turn", { outcome }), me);
    expect(ended({ status: "error", steps: 1, error: "mock 500" })).toBe(
      "main turn ended: error after 1 step(s): mock 500",
    );
    expect(ended({ status: "blocked", steps: 0, reason: "quiet hours" })).toBe(
      "main turn ended: blocked after 0 step(s): quiet hours",
    );
    expect(eventLine(record("agent.w.error", { message: "mock 500" }), me)).toBe("w error: mock 500");
    expect(eventLine(record("session.rename", { name: "x" }), me)).toBe('session.rename {"name":"x"}');
  });

  it("cuts long text short", () => {
    const line = eventLine(record("agent.main.user", { text: "x".repeat(1000), from: "user" }), me);
    expect(line.length).toBeLessThan(260);
  });
});
