import { describe, expect, it } from "vitest";
import { eventLine } from "./event-line.js";

const time = "2026-12-01T10:20:30.456Z";
const me = "111-aaaaaa.main";

describe("an event as an observer's line", () => {
  it("says who prompted, marking the observer's own messages", () => {
    const user = (text: string, from = "user") =>
      eventLine({ topic: "agent.main.user", time, text, from }, me);
    expect(user("Fix the tests")).toBe("10:20:30 main ← prompt: Fix the tests");
    expect(user(`[from=${me}]\nStop retrying.`)).toBe("10:20:30 main ← your own message: Stop retrying.");
    expect(user("[from=222-bbbbbb.main]\nA task\non two lines")).toBe(
      "10:20:30 main ← prompt from 222-bbbbbb.main: A task on two lines",
    );
  });

  it("gives a tool's call and result, a turn's end and an error on a line each", () => {
    const tool = eventLine(
      {
        topic: "agent.main.tool",
        time,
        call: { name: "shell", arguments: { command: "make" } },
        result: { content: "make: *** No rule\nto make target", isError: true },
      },
      me,
    );
    expect(tool).toBe('10:20:30 main shell {"command":"make"} → FAILED: make: *** No rule to make target');
    expect(
      eventLine(
        { topic: "agent.main.turn", outcome: { status: "done", steps: 2, reply: { content: "Done." } } },
        me,
      ),
    ).toBe("main turn ended: done after 2 step(s); last reply: Done.");
    expect(eventLine({ topic: "agent.w.error", message: "mock 500" }, me)).toBe("w error: mock 500");
    expect(eventLine({ topic: "session.rename", name: "x" }, me)).toBe('session.rename {"name":"x"}');
  });

  it("cuts long text short", () => {
    const line = eventLine({ topic: "agent.main.user", text: "x".repeat(1000), from: "user" }, me);
    expect(line.length).toBeLessThan(260);
  });
});
