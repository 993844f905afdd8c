import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyTotals } from "@ollie/agent-core/sessions";
import type { Message } from "@ollie/backends";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSessionFiles, type SessionFile, writeSessionFile } from "./session-file.js";

let root: string;
let dir: string;
let corrupt: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "olliesrv-session-file-"));
  dir = join(root, "sessions");
  corrupt = join(root, "corrupt");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const idOf = (n: number) => `${String(n).padStart(19, "1")}-abcdef`;

function sessionFile(n: number, messages: unknown[]): SessionFile {
  const id = idOf(n);
  return {
    version: 1,
    id,
    name: `s${n}`,
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
          agentId: `${id}/main`,
          name: "main",
          // Malformed on purpose in some tests: what a damaged file holds.
          messages: messages as Message[],
          taskState: { objective: "", constraints: [] },
          usage: emptyTotals(),
          savedAt: "2026-12-01T00:00:00.000Z",
        },
      },
    ],
  };
}

describe("reading session files back", () => {
  it("quarantines a file whose nested history is malformed, and brings the others back", async () => {
    const good = [
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
    ];
    await writeSessionFile(dir, sessionFile(1, good));
    await writeSessionFile(dir, sessionFile(2, [{ role: "user", content: 5 }]));
    await writeSessionFile(dir, sessionFile(3, good));
    const lines: string[] = [];
    const read = await readSessionFiles(dir, corrupt, (line) => lines.push(line));
    expect(read.map((s) => s.name).sort()).toEqual(["s1", "s3"]);
    expect(readdirSync(dir).sort()).toEqual([`${idOf(1)}.json`, `${idOf(3)}.json`]);
    const [aside] = readdirSync(corrupt);
    expect(aside).toMatch(new RegExp(`^${idOf(2)}\\.\\d+\\.json$`));
    expect(JSON.parse(readFileSync(join(corrupt, aside!), "utf8")).name).toBe("s2");
    expect(lines).toEqual([
      expect.stringMatching(
        /^unreadable session file .*\.json:1:\d+: agents\[0\]\.session\.messages\[0\]\.content: .*; moved it to /,
      ),
    ]);
  });

  it("quarantines a file that is not JSON or names another session", async () => {
    await writeSessionFile(dir, sessionFile(1, []));
    writeFileSync(join(dir, `${idOf(2)}.json`), "{ not json");
    writeFileSync(join(dir, `${idOf(3)}.json`), JSON.stringify(sessionFile(4, [])));
    const lines: string[] = [];
    const read = await readSessionFiles(dir, corrupt, (line) => lines.push(line));
    expect(read.map((s) => s.name)).toEqual(["s1"]);
    expect(readdirSync(corrupt)).toHaveLength(2);
    expect(lines.join("\n")).toMatch(/is not the file's name/);
  });
});
