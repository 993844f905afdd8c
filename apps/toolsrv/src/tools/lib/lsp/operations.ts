import { fileURLToPath } from "node:url";
import type {
  Definition,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkedString,
  SymbolInformation,
  WorkspaceEdit,
  WorkspaceSymbol,
} from "vscode-languageserver-protocol";
import { ToolError } from "../tool-io.js";
import type { BrokerRequest } from "./broker-protocol.js";
import type { LanguageServer } from "./language-server.js";
import { displayPath, limitOf, type Place, placeLines, TextCache } from "./result-text.js";
import { targetPosition } from "./target-position.js";
import { applyTextEdits, previewLines, textEditsOf, writeFilesAtomically } from "./workspace-edit.js";

/** How long lsp_diagnostics waits for the server to publish after a change. */
const DIAGNOSTICS_MS = 10_000;
const HOVER_CHARS = 3000;

/** What an operation needs: the server of the file's workspace, the request, and the file (absolute). */
export interface Operation {
  server: LanguageServer;
  req: BrokerRequest;
  file: string;
}

/** Brings the server up to date with the disk and resolves the position the request names. */
async function prepare(op: Operation) {
  const { server, req, file } = op;
  const synced = await server.sync(file);
  await server.syncAll();
  const declared =
    req.symbol && req.line === undefined
      ? ((await server.request<(DocumentSymbol | SymbolInformation)[] | null>("textDocument/documentSymbol", {
          textDocument: { uri: synced.uri },
        })) ?? [])
      : [];
  const position = targetPosition(displayPath(req.cwd, file), synced.text, req, declared);
  const texts = new TextCache(
    [...server.documents].map(([uri, d]) => [fileURLToPath(uri), d.text] as [string, string]),
  );
  const where = `${displayPath(req.cwd, file)}:${position.line + 1}:${position.character + 1}`;
  return { ...synced, position, texts, where, params: { textDocument: { uri: synced.uri }, position } };
}

function placeOf(l: Location | LocationLink): Place {
  const uri = "targetUri" in l ? l.targetUri : l.uri;
  const start = "targetUri" in l ? l.targetSelectionRange.start : l.range.start;
  return { file: fileURLToPath(uri), line: start.line, character: start.character };
}

const byPlace = (a: Place, b: Place) =>
  a.file.localeCompare(b.file) || a.line - b.line || a.character - b.character;

export async function definition(op: Operation): Promise<string> {
  const p = await prepare(op);
  const found = await op.server.request<Definition | LocationLink[] | null>(
    "textDocument/definition",
    p.params,
  );
  const places = (Array.isArray(found) ? found : found ? [found] : []).map(placeOf);
  if (places.length === 0) return `no definition found at ${p.where}`;
  return (await placeLines(places, op.req.cwd, p.texts, limitOf(op.req.limit))).join("\n");
}

export async function references(op: Operation): Promise<string> {
  const p = await prepare(op);
  const found = await op.server.request<Location[] | null>("textDocument/references", {
    ...p.params,
    context: { includeDeclaration: true },
  });
  const places = (found ?? []).map(placeOf).sort(byPlace);
  if (places.length === 0) return `no references found at ${p.where}`;
  const lines = await placeLines(places, op.req.cwd, p.texts, limitOf(op.req.limit));
  return [`${places.length} reference${places.length === 1 ? "" : "s"}:`, ...lines].join("\n");
}

export async function hover(op: Operation): Promise<string> {
  const p = await prepare(op);
  const found = await op.server.request<Hover | null>("textDocument/hover", p.params);
  const text = found ? hoverText(found.contents) : "";
  const [head] = await placeLines([{ file: op.file, ...p.position }], op.req.cwd, p.texts, 1);
  if (!text) return `${head}\n(nothing to say here)`;
  return `${head}\n${text.length > HOVER_CHARS ? `${text.slice(0, HOVER_CHARS)}…` : text}`;
}

/** Hover contents as plain lines: Markdown kept, code fences dropped (the code itself stays). */
function hoverText(contents: Hover["contents"]): string {
  const parts = (Array.isArray(contents) ? contents : [contents]).map(
    (c: MarkedString | { value: string }) => (typeof c === "string" ? c : c.value),
  );
  return parts
    .join("\n\n")
    .split("\n")
    .filter((l) => !/^\s*```/.test(l))
    .join("\n")
    .trim();
}

const SEVERITY = ["", "error", "warning", "info", "hint"];
/** ` TS2322` for TypeScript's codes, ` SOURCE CODE` for others', nothing without one. */
const codeOf = (d: Diagnostic) =>
  d.code === undefined
    ? ""
    : d.source === "typescript"
      ? ` TS${d.code}`
      : ` ${d.source ? `${d.source} ` : ""}${d.code}`;
const messageOf = (d: Diagnostic) => (typeof d.message === "string" ? d.message : d.message.value);

export async function diagnostics(op: Operation): Promise<string> {
  const { server, req, file } = op;
  const mark = server.mark();
  const synced = await server.sync(file);
  const others = await server.syncAll();
  const { diagnostics: found, stale } = await server.diagnostics(
    synced.uri,
    synced.changed || others ? mark : -1,
    DIAGNOSTICS_MS,
  );
  const path = displayPath(req.cwd, file);
  const note = stale
    ? `\n(${server.spec.command} published nothing new within ${DIAGNOSTICS_MS / 1000} s)`
    : "";
  if (found.length === 0) return `no problems in ${path}${note}`;
  const sorted = [...found].sort(
    (a, b) => (a.severity ?? 1) - (b.severity ?? 1) || a.range.start.line - b.range.start.line,
  );
  const places = sorted.map((d: Diagnostic) => ({
    file,
    ...d.range.start,
    note: `${SEVERITY[d.severity ?? 1]}${codeOf(d)}: ${messageOf(d).split("\n", 1)[0]}`,
  }));
  const texts = new TextCache([[file, synced.text]]);
  const lines = await placeLines(places, req.cwd, texts, limitOf(req.limit));
  return [`${found.length} problem${found.length === 1 ? "" : "s"} in ${path}:`, ...lines].join("\n") + note;
}

const KINDS = [
  "",
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter",
];

export async function documentSymbols(op: Operation): Promise<string> {
  const { server, req, file } = op;
  const synced = await server.sync(file);
  const found =
    (await server.request<(DocumentSymbol | SymbolInformation)[] | null>("textDocument/documentSymbol", {
      textDocument: { uri: synced.uri },
    })) ?? [];
  const path = displayPath(req.cwd, file);
  const rows: string[] = [];
  const walk = (symbols: readonly (DocumentSymbol | SymbolInformation)[], depth: number) => {
    for (const s of symbols) {
      const start = "selectionRange" in s ? s.selectionRange.start : s.location.range.start;
      rows.push(
        `${path}:${start.line + 1}:${start.character + 1}  ${"  ".repeat(depth)}${KINDS[s.kind] ?? "symbol"} ${s.name}`,
      );
      if ("children" in s && s.children) walk(s.children, depth + 1);
    }
  };
  walk(found, 0);
  if (rows.length === 0) return `no symbols in ${path}`;
  return bounded(rows, limitOf(req.limit));
}

export async function workspaceSymbols(op: Operation): Promise<string> {
  const { server, req, file } = op;
  await server.sync(file);
  await server.syncAll();
  const found =
    (await server.request<(SymbolInformation | WorkspaceSymbol)[] | null>("workspace/symbol", {
      query: req.query,
    })) ?? [];
  const rows = found.map((s) => {
    const start = "range" in s.location ? s.location.range.start : { line: 0, character: 0 };
    const where = `${displayPath(req.cwd, fileURLToPath(s.location.uri))}:${start.line + 1}:${start.character + 1}`;
    return `${where}  ${KINDS[s.kind] ?? "symbol"} ${s.name}${s.containerName ? ` (in ${s.containerName})` : ""}`;
  });
  if (rows.length === 0) return `no symbols match '${req.query}' in ${server.root}`;
  return bounded(rows, limitOf(req.limit));
}

function bounded(rows: readonly string[], limit: number): string {
  const shown = rows.slice(0, limit);
  return [...shown, ...(rows.length > limit ? [`… and ${rows.length - limit} more`] : [])].join("\n");
}

export async function rename(op: Operation): Promise<string> {
  const { server, req } = op;
  const newName = req.newName;
  if (!newName) throw new ToolError("lsp_rename needs new_name");
  const p = await prepare(op);
  const old = wordAt(p.text, p.position.line, p.position.character);
  const edit = await server.request<WorkspaceEdit | null>("textDocument/rename", { ...p.params, newName });
  const byFile = textEditsOf(edit ?? {});
  const count = [...byFile.values()].reduce((n, e) => n + e.length, 0);
  if (count === 0) return `nothing to rename at ${p.where}`;
  const files = new Map<string, { expected: string; text: string }>();
  const lines: string[] = [];
  for (const [file, edits] of [...byFile].sort((a, b) => a[0].localeCompare(b[0]))) {
    const text = await p.texts.get(file);
    if (text === undefined) throw new ToolError(`cannot read ${file}, which the rename edits`);
    files.set(file, { expected: text, text: applyTextEdits(text, edits) });
    lines.push(...previewLines(file, req.cwd, text, edits));
  }
  const what = `'${old}' → '${newName}': ${count} edit${count === 1 ? "" : "s"} in ${files.size} file${files.size === 1 ? "" : "s"}`;
  const shown = bounded(lines, limitOf(req.limit));
  if (!req.apply) return `rename ${what} (not applied: call again with apply true to write them)\n${shown}`;
  await writeFilesAtomically(files, (f) => new TextCache().get(f));
  // The server sees the new texts at once, not at the next call's sync.
  for (const file of files.keys()) await server.sync(file);
  return `renamed ${what}\n${shown}`;
}

/** The identifier at a position (what is being renamed), for the summary line. */
function wordAt(text: string, line: number, character: number): string {
  const l = text.split("\n")[line] ?? "";
  let from = character;
  let to = character;
  while (from > 0 && /[\w$]/.test(l[from - 1] ?? "")) from--;
  while (to < l.length && /[\w$]/.test(l[to] ?? "")) to++;
  return l.slice(from, to) || "?";
}
