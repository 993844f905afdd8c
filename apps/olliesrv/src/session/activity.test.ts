import type { AgentEvent } from "@ollie/agent-core";
import { describe, expect, it } from "vitest";
import { Activity, firstArgument } from "./activity.js";

const call = (name: string, args: Record<string, unknown>, id = name) => ({ id, name, arguments: args });
const kv = (a: Activity) =>
  Object.fromEntries(
    a
      .text()
      .trimEnd()
      .split("\n")
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  );

describe("an agent's activity", () => {
  it("follows a turn: thinking, the running tool with its first argument, then idle with no turn", () => {
    const a = new Activity();
    expect(kv(a)).toMatchObject({ state: "idle", tool: "", arg: "", turn_started: "" });
    const events: AgentEvent[] = [
      { type: "user", text: "go", from: "user" },
      { type: "state", state: "thinking" },
    ];
    for (const e of events) a.event(e);
    const thinking = kv(a);
    expect(thinking).toMatchObject({ state: "thinking", tool: "", arg: "" });
    expect(Date.parse(thinking.turn_started!)).not.toBeNaN();
    a.event({ type: "call", call: call("file_read", { path: "a.txt" }) });
    a.event({ type: "call", call: call("shell", { command: "sleep 1\nand more", timeout: 5 }) });
    a.event({ type: "state", state: "calling: file_read" });
    expect(kv(a)).toMatchObject({ state: "calling", tool: "file_read", arg: "a.txt" });
    a.event({ type: "state", state: "calling: shell" });
    expect(kv(a)).toMatchObject({ state: "calling", tool: "shell", arg: "sleep 1 and more" });
    expect(kv(a).turn_started).toBe(thinking.turn_started);
    a.event({
      type: "turn",
      outcome: { status: "done", steps: 1, usage: {} as never, reply: { role: "assistant", content: "" } },
    });
    a.event({ type: "state", state: "idle" });
    expect(kv(a)).toMatchObject({ state: "idle", tool: "", arg: "", turn_started: "" });
    expect(a.text()).toMatch(/^state=idle\ntool=\narg=\nsince=\d{4}-.*Z\nturn_started=\n$/);
  });

  it("shows a hook with its event, a compaction, and the calls again once their hooks end", () => {
    const a = new Activity();
    a.event({ type: "state", state: "hook: preTurn" });
    const hooked = kv(a);
    expect(hooked).toMatchObject({ state: "hook", tool: "preTurn", arg: "" });
    // The turn began with its hook, before its prompt was in the history.
    expect(Date.parse(hooked.turn_started!)).not.toBeNaN();
    a.event({ type: "user", text: "go", from: "user" });
    a.event({ type: "state", state: "thinking" });
    a.event({ type: "call", call: call("shell", { command: "make" }, "1") });
    a.event({ type: "call", call: call("shell", { command: "make test" }, "2") });
    a.event({ type: "state", state: "calling: shell" });
    a.event({ type: "state", state: "hook: preTool" });
    expect(kv(a)).toMatchObject({ state: "hook", tool: "preTool", arg: "" });
    a.event({ type: "state", state: "calling: shell" });
    // Still the first call: the second has not started.
    expect(kv(a)).toMatchObject({ state: "calling", tool: "shell", arg: "make" });
    a.event({ type: "state", state: "compacting" });
    expect(kv(a)).toMatchObject({
      state: "compacting",
      tool: "",
      arg: "",
      turn_started: hooked.turn_started,
    });
    a.event({
      type: "turn",
      outcome: { status: "done", steps: 1, usage: {} as never, reply: { role: "assistant", content: "" } },
    });
    a.event({ type: "state", state: "idle" });
    expect(kv(a)).toMatchObject({ state: "idle", turn_started: "" });
    // Work outside a turn (a postTurn hook, a compaction from ctl) has a start of its own, and ends at idle.
    a.event({ type: "state", state: "hook: postTurn" });
    expect(kv(a).turn_started).not.toBe("");
    a.event({ type: "state", state: "idle" });
    expect(kv(a)).toMatchObject({ state: "idle", tool: "", turn_started: "" });
  });

  it("names every tool of a group running together, and the first one's argument", () => {
    const a = new Activity();
    a.event({ type: "call", call: call("file_read", { path: "x" }, "1") });
    a.event({ type: "call", call: call("file_glob", { pattern: "*.ts" }, "2") });
    a.event({ type: "state", state: "calling: file_read, file_glob" });
    expect(kv(a)).toMatchObject({ tool: "file_read,file_glob", arg: "x" });
  });

  it("keeps an argument to one line of at most 120 characters", () => {
    expect(firstArgument(call("t", { text: `${"x".repeat(200)}` }))).toBe(`${"x".repeat(119)}…`);
    expect(firstArgument(call("t", { n: { deep: [1, 2] } }))).toBe('{"deep":[1,2]}');
    expect(firstArgument(call("t", {}))).toBe("");
    expect(firstArgument(call("t", { s: "a\r\nb\u2028c\u0000d" }))).toBe("a b c d");
  });
});
