import { randomBytes } from "node:crypto";
import { rename, rm, stat, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { TextEdit, WorkspaceEdit } from "vscode-languageserver-protocol";
import { ToolError } from "../tool-io.js";
import { displayPath, lineOf } from "./result-text.js";

/** A workspace edit's text edits, by file; a ToolError if it would also create, rename or delete files. */
export function textEditsOf(edit: WorkspaceEdit): Map<string, TextEdit[]> {
  const byFile = new Map<string, TextEdit[]>();
  const add = (uri: string, edits: readonly TextEdit[]) => {
    const file = fileURLToPath(uri);
    byFile.set(file, [...(byFile.get(file) ?? []), ...edits]);
  };
  for (const change of edit.documentChanges ?? []) {
    if ("kind" in change)
      throw new ToolError(`the server's edit would also ${change.kind} a file, which lsp_rename does not do`);
    add(change.textDocument.uri, change.edits as TextEdit[]);
  }
  if (!edit.documentChanges) for (const [uri, edits] of Object.entries(edit.changes ?? {})) add(uri, edits);
  return byFile;
}

/** The offset of an LSP position (UTF-16 code units, as JavaScript strings count) in `text`. */
function offsetOf(starts: readonly number[], text: string, line: number, character: number): number {
  const start = starts[line] ?? text.length;
  const end = starts[line + 1] ?? text.length;
  return Math.min(start + character, end);
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** `text` with `edits` applied (they must not overlap, as LSP requires). */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = lineStarts(text);
  const spans = edits
    .map((e) => ({
      from: offsetOf(starts, text, e.range.start.line, e.range.start.character),
      to: offsetOf(starts, text, e.range.end.line, e.range.end.character),
      text: e.newText,
    }))
    .sort((a, b) => b.from - a.from);
  let out = text;
  for (const s of spans) out = out.slice(0, s.from) + s.text + out.slice(s.to);
  return out;
}

/**
 * One line per edited line: `path:line:col  old → new`, the old line and the line it becomes (edits that
 * span lines show their first line and how many they replace).
 */
export function previewLines(file: string, cwd: string, text: string, edits: readonly TextEdit[]): string[] {
  const byLine = new Map<number, TextEdit[]>();
  for (const e of edits) byLine.set(e.range.start.line, [...(byLine.get(e.range.start.line) ?? []), e]);
  const lines: string[] = [];
  for (const [line, onLine] of [...byLine].sort((a, b) => a[0] - b[0])) {
    const first = Math.min(...onLine.map((e) => e.range.start.character));
    const where = `${displayPath(cwd, file)}:${line + 1}:${first + 1}`;
    const old = text.split("\n")[line] ?? "";
    const single = onLine.filter((e) => e.range.end.line === line);
    const after = applyTextEdits(
      old,
      single.map((e) => ({
        ...e,
        range: {
          start: { line: 0, character: e.range.start.character },
          end: { line: 0, character: e.range.end.character },
        },
      })),
    );
    const spanning = onLine.length - single.length;
    lines.push(
      `${where}  ${lineOf(old, 0)} → ${lineOf(after, 0)}${spanning > 0 ? ` (and an edit over ${spanning === 1 ? "more lines" : `${spanning} spans of lines`})` : ""}`,
    );
  }
  return lines;
}

/**
 * Writes every file's new text, each atomically (a temporary file beside it, then renamed over it, keeping
 * its mode); checks first that none changed since `expected` was read.
 */
export async function writeFilesAtomically(
  files: ReadonlyMap<string, { expected: string; text: string }>,
  read: (file: string) => Promise<string | undefined>,
): Promise<void> {
  for (const [file, { expected }] of files)
    if ((await read(file)) !== expected)
      throw new ToolError(`${file} changed while the rename was computed; nothing was written: try again`);
  const temps: [string, string][] = [];
  try {
    for (const [file, { text }] of files) {
      const mode = (await stat(file)).mode & 0o7777;
      const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
      await writeFile(temp, text, { mode });
      temps.push([temp, file]);
    }
  } catch (error) {
    await Promise.all(temps.map(([t]) => rm(t, { force: true })));
    throw new ToolError(`cannot write the renamed files: ${(error as Error).message}; nothing was changed`);
  }
  for (const [temp, file] of temps) await rename(temp, file);
}
