import { INTERRUPTED_RESULT, INTERRUPTED_TURN } from "@ollie/agent-core";
import type { Message } from "@ollie/backends";
import { describe, expect, it } from "vitest";
import { repairHistory } from "./repair-history.js";

const call = (id: string) => ({ id, name: "shell", arguments: { command: id } });

describe("repairing a copy of a history that may be mid-turn (a fork)", () => {
  it("answers each call of a round left without a result, after the results it did get", () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [call("a"), call("b"), call("c")] },
      { role: "tool", toolCallId: "b", name: "shell", content: "b done" },
    ];
    const { messages: out, added } = repairHistory(messages);
    expect(added).toBe(2);
    expect(out.slice(2)).toEqual([
      { role: "tool", toolCallId: "b", name: "shell", content: "b done" },
      { role: "tool", toolCallId: "a", name: "shell", content: INTERRUPTED_RESULT, isError: true },
      { role: "tool", toolCallId: "c", name: "shell", content: INTERRUPTED_RESULT, isError: true },
    ]);
  });

  it("answers a prompt left without a reply, and leaves a whole history as it is", () => {
    expect(repairHistory([{ role: "user", content: "hello?" }]).messages).toEqual([
      { role: "user", content: "hello?" },
      { role: "assistant", content: INTERRUPTED_TURN },
    ]);
    const whole: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ];
    expect(repairHistory(whole)).toEqual({ messages: whole, added: 0 });
  });
});
