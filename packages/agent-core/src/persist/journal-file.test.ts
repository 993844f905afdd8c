import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { INTERRUPTED_TURN, RESTART_RESULT } from "../history/history.js";
import type { JournalEntry } from "./journal.js";
import { appendJournal, readJournal } from "./journal-file.js";
import { loadSession, saveSession } from "./session-file.js";

const dir = mkdtempSync(join(tmpdir(), "agent-core-journal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const result = (id: string): JournalEntry => ({
  type: "result",
  history: "h",
  round: 1,
  result: { role: "tool", toolCallId: id, name: "read", content: id },
});

describe("a journal file", () => {
  it("is private, one entry a line, read back up to a line a kill cut short", async () => {
    const journal = join(dir, "lines.journal");
    await appendJournal(journal, result("a"));
    await appendJournal(journal, result("b"));
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    appendFileSync(journal, '{"type":"result","hist');
    expect(await readJournal(journal)).toEqual({
      entries: [result("a"), result("b")],
      broken: { line: 3, problem: "not JSON" },
    });
    expect(await readJournal(join(dir, "none.journal"))).toEqual({ entries: [] });
  });

  it("keeps the round a killed process was running, which loading applies, repairs, saves and empties", async () => {
    const file = join(dir, "killed.json");
    const journal = join(dir, "killed.journal");
    let disk: { file: string; journal: string } | undefined;
    const probe = echoTool("probe", {
      run: () => {
        // What the disk holds while the call runs: what a process killed now leaves behind.
        disk = { file: readFileSync(file, "utf8"), journal: readFileSync(journal, "utf8") };
        return "ran";
      },
    });
    const { agent } = await scriptedAgent([call("probe"), { text: "done" }], {
      tools: tools(probe),
      persist: (s) => saveSession(file, s, { journal }),
      journal: (entry) => appendJournal(journal, entry),
    });
    await agent.submit("look");
    // The finished turn's last save emptied the journal.
    expect(existsSync(journal)).toBe(false);
    expect((await loadSession(file, { journal })).session.messages.at(-1)!.content).toBe("done");

    writeFileSync(file, disk!.file);
    writeFileSync(journal, disk!.journal);
    const { session, repaired } = await loadSession(file, { journal });
    expect(repaired).toBe(2);
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(session.messages[2]!.content).toBe(RESTART_RESULT);
    expect(session.messages[3]!.content).toBe(INTERRUPTED_TURN);
    expect(existsSync(journal)).toBe(false);
    expect(JSON.parse(readFileSync(file, "utf8")).messages).toEqual(session.messages);
    expect((await loadSession(file, { journal })).repaired).toBe(0);
  });
});
