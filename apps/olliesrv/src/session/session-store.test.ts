import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JournalEntry } from "@ollie/agent-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionFile } from "./session-file.js";
import { JournalGapError, journalFile, SessionStore } from "./session-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "olliesrv-session-store-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const id = "1796000000000000000-abcdef";
const file: SessionFile = {
  version: 1,
  id,
  name: "s",
  cwd: "/tmp",
  env: {},
  plan: "",
  created: "2026-12-01T00:00:00.000Z",
  paused: true,
  agents: [{ name: "main", profile: "coding" }],
};
const entry = (callId: string): JournalEntry => ({
  type: "result",
  history: "h",
  round: 1,
  result: { role: "tool", toolCallId: callId, name: "shell", content: "ok" },
});

describe("a session on the disk", () => {
  it("journals between writes, one line an entry, and a write removes the journals it holds", async () => {
    const store = new SessionStore(dir, id);
    expect(store.written).toBe(false);
    await store.write(file);
    await store.append("main", entry("a"));
    await store.append("main", entry("b"));
    const journal = journalFile(dir, id, "main");
    expect(
      readFileSync(journal, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([entry("a"), entry("b")]);
    await store.write(file);
    expect(store.written).toBe(true);
    expect(readdirSync(dir)).toEqual([`${id}.json`]);
    await store.remove(["main"]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("after an entry that could not be written, appends nothing until a write removed the journal", async () => {
    const store = new SessionStore(dir, id);
    const journal = journalFile(dir, id, "main");
    // A journal that cannot be appended to (what a full disk does to a write).
    mkdirSync(journal);
    await expect(store.append("main", entry("a"))).rejects.toThrow(/EISDIR/);
    await expect(store.append("main", entry("b"))).rejects.toThrow(JournalGapError);
    // A write that cannot remove the journal keeps the gap: the journal may end in half a line.
    await store.write(file);
    await expect(store.append("main", entry("c"))).rejects.toThrow(JournalGapError);
    rmSync(journal, { recursive: true });
    await store.write(file);
    await store.append("main", entry("d"));
    expect(existsSync(journal)).toBe(true);
  });

  it("restored, counts as written and removes the journals its agents may have left", async () => {
    const store = new SessionStore(dir, id, ["main"]);
    expect(store.written).toBe(true);
    await store.append("main", entry("a"));
    await new SessionStore(dir, id, ["main"]).write(file);
    expect(readdirSync(dir)).toEqual([`${id}.json`]);
  });
});
