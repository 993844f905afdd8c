import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JournalEntry } from "@ollie/agent-core";
import {
  appendJournal,
  emptyTotals,
  INTERRUPTED_RESULT,
  INTERRUPTED_TURN,
  RESTART_RESULT,
} from "@ollie/agent-core/sessions";
import type { Message } from "@ollie/backends";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyJournals, repairHistory, repairSessionFile } from "./repair-history.js";
import type { SessionFile } from "./session-file.js";
import { journalFile } from "./session-store.js";

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

describe("restoring a session file with its journals", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "olliesrv-repair-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const id = "1796000000000000000-abcdef";
  const file = (): SessionFile => ({
    version: 1,
    id,
    name: "s",
    cwd: "/tmp",
    env: {},
    plan: "",
    created: "2026-12-01T00:00:00.000Z",
    paused: true,
    agents: [
      {
        name: "main",
        profile: "coding",
        session: {
          version: 1,
          id,
          agentId: `${id}.main`,
          name: "main",
          messages: [{ role: "user", content: "go" }],
          taskState: { objective: "", constraints: [] },
          usage: emptyTotals(),
          savedAt: "2026-12-01T00:00:00.000Z",
          turnRunning: true,
          historyId: "h",
        },
      },
    ],
  });
  const round: JournalEntry = {
    type: "round",
    history: "h",
    at: 1,
    messages: [{ role: "assistant", content: "", toolCalls: [call("a"), call("b")] }],
    usage: emptyTotals(),
    taskState: { objective: "go", constraints: [] },
  };
  const done: JournalEntry = {
    type: "result",
    history: "h",
    round: 1,
    result: { role: "tool", toolCallId: "a", name: "shell", content: "a done" },
  };

  it("takes back the rounds and results journaled after the file, up to a line a kill cut short, then repairs", async () => {
    const journal = journalFile(dir, id, "main");
    await appendJournal(journal, round);
    await appendJournal(journal, done);
    appendFileSync(journal, '{"type":"result","hi');
    const warnings: string[] = [];
    const restored = file();
    expect(await applyJournals(dir, restored, (l) => warnings.push(l))).toBe(2);
    expect(warnings).toEqual([`${journal}:3: not JSON; the journal is used up to that line`]);
    expect(repairSessionFile(restored)).toBe(2);
    expect(restored.agents[0]!.session!.messages.slice(1)).toEqual([
      round.messages[0],
      { role: "tool", toolCallId: "a", name: "shell", content: "a done" },
      { role: "tool", toolCallId: "b", name: "shell", content: RESTART_RESULT, isError: true },
      { role: "assistant", content: INTERRUPTED_TURN },
    ]);
    expect(restored.agents[0]!.session!.turnRunning).toBeUndefined();
  });

  it("restores the session without a journal it cannot read", async () => {
    mkdirSync(journalFile(dir, id, "main"));
    const warnings: string[] = [];
    const restored = file();
    expect(await applyJournals(dir, restored, (l) => warnings.push(l))).toBe(0);
    expect(warnings[0]).toMatch(/main\.journal: .*EISDIR.*; the journal is not used$/);
    expect(restored).toEqual(file());
  });
});
