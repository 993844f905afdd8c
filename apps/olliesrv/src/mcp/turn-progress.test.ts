import type { AgentActivity } from "@ollie/client";
import { describe, expect, it } from "vitest";
import { TurnProgress } from "./turn-progress.js";

const activity = (state: AgentActivity["state"], tool = "", arg = ""): AgentActivity => ({
  state,
  tools: tool ? [tool] : [],
  arg,
  since: undefined,
  turnStarted: undefined,
});

/** A TurnProgress for the prompt `hi`, and the notifications it sent. */
function follower(notify: () => Promise<void> = async () => {}) {
  const told: Array<[number, string]> = [];
  const p = new TurnProgress("hi", async (n, message) => {
    told.push([n, message]);
    await notify();
  });
  return { p, told };
}

describe("telling an MCP client how a turn goes", () => {
  it("tells each state and each line the chat ends, less the prompt, numbered upwards", () => {
    const { p, told } = follower();
    p.chunk("» h");
    p.chunk("i\n\n");
    p.update(activity("thinking"));
    p.chunk("Looking");
    p.chunk(" now.\n→ shell {");
    p.update(activity("calling", "shell", "ls"));
    p.chunk('"command":"ls"}\n');
    p.update(activity("idle"));
    p.chunk("Done.");
    expect(told).toEqual([
      [1, "thinking"],
      [2, "Looking now."],
      [3, "calling shell: ls"],
      [4, '→ shell {"command":"ls"}'],
    ]);
  });

  it("tells a message once while it stays the same, and a long line shortened", () => {
    const { p, told } = follower();
    p.update(activity("thinking"));
    p.update(activity("thinking"));
    p.chunk(`» hi\n\n${"x".repeat(500)}\n`);
    expect(told.map(([n]) => n)).toEqual([1, 2]);
    expect([...told[1]![1]]).toHaveLength(120);
  });

  it("goes on when a notification cannot be sent", async () => {
    const { p, told } = follower(() => Promise.reject(new Error("Not connected")));
    p.update(activity("thinking"));
    p.chunk("» hi\n\nstill here\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect(told.map(([, m]) => m)).toEqual(["thinking", "still here"]);
  });
});
