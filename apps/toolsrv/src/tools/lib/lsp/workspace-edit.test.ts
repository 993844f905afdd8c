import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { applyTextEdits, previewLines, textEditsOf, writeFilesAtomically } from "./workspace-edit.js";

const root = mkdtempSync(join(tmpdir(), "lsp-edit-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const at = (line: number, from: number, to: number, newText: string) => ({
  range: { start: { line, character: from }, end: { line, character: to } },
  newText,
});

describe("workspace edits", () => {
  it("applies edits from the end, so earlier offsets stay right", () => {
    const text = "let a = a + a;\nuse(a);\n";
    expect(
      applyTextEdits(text, [at(0, 4, 5, "bb"), at(0, 8, 9, "bb"), at(0, 12, 13, "bb"), at(1, 4, 5, "bb")]),
    ).toBe("let bb = bb + bb;\nuse(bb);\n");
  });

  it("shows each edited line as path:line:col old → new", () => {
    const file = join(root, "a.ts");
    expect(previewLines(file, root, "  let a = a;\n", [at(0, 6, 7, "b"), at(0, 10, 11, "b")])).toEqual([
      "a.ts:1:7  let a = a; → let b = b;",
    ]);
  });

  it("reads both forms of a workspace edit, and refuses file operations", () => {
    const uri = pathToFileURL(join(root, "a.ts")).href;
    expect(textEditsOf({ changes: { [uri]: [at(0, 0, 1, "x")] } }).get(join(root, "a.ts"))).toHaveLength(1);
    expect(
      textEditsOf({ documentChanges: [{ textDocument: { uri, version: 1 }, edits: [at(0, 0, 1, "x")] }] })
        .size,
    ).toBe(1);
    expect(() =>
      textEditsOf({ documentChanges: [{ kind: "rename", oldUri: uri, newUri: `${uri}x` }] }),
    ).toThrow("the server's edit would also rename a file, which lsp_rename does not do");
  });

  it("writes files atomically, keeping their mode, and refuses when one changed meanwhile", async () => {
    const file = join(root, "run.sh");
    writeFileSync(file, "old\n");
    chmodSync(file, 0o750);
    const read = async (f: string) => readFileSync(f, "utf8");
    await writeFilesAtomically(new Map([[file, { expected: "old\n", text: "new\n" }]]), read);
    expect(readFileSync(file, "utf8")).toBe("new\n");
    expect(statSync(file).mode & 0o777).toBe(0o750);
    await expect(
      writeFilesAtomically(new Map([[file, { expected: "old\n", text: "newer\n" }]]), read),
    ).rejects.toThrow(`${file} changed while the rename was computed; nothing was written: try again`);
    expect(readFileSync(file, "utf8")).toBe("new\n");
    expect(readdirSync(root).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});
