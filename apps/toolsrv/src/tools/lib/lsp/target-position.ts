import type { DocumentSymbol, Position, SymbolInformation } from "vscode-languageserver-protocol";
import { ToolError } from "../tool-io.js";

/** Where in the file a call points: 1-based line and column, or a symbol name (on a line, or anywhere). */
export interface Target {
  line?: number | undefined;
  column?: number | undefined;
  symbol?: string | undefined;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The first whole-word occurrence of `name` in `line`, as a 0-based character; -1 if none. */
function wordIn(line: string, name: string): number {
  const m = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`).exec(line);
  return m ? m.index : -1;
}

/**
 * The LSP position a call means: `line` and `column` as given; `symbol` on `line` (its first whole-word
 * occurrence there); or `symbol` alone — where the file declares it (by its document symbols), else its first
 * whole-word occurrence in the file.
 */
export function targetPosition(
  path: string,
  text: string,
  target: Target,
  declared: readonly (DocumentSymbol | SymbolInformation)[] = [],
): Position {
  const lines = text.split("\n");
  const { line, column, symbol } = target;
  if (line !== undefined && (line < 1 || line > lines.length))
    throw new ToolError(`${path} has ${lines.length} lines; line ${line} is not one of them`);
  if (symbol) {
    if (line !== undefined) {
      const at = wordIn(lines[line - 1] ?? "", symbol);
      if (at < 0) throw new ToolError(`'${symbol}' does not occur on line ${line} of ${path}`);
      return { line: line - 1, character: at };
    }
    const found = findDeclared(declared, symbol);
    if (found) return found;
    for (const [i, l] of lines.entries()) {
      const at = wordIn(l, symbol);
      if (at >= 0) return { line: i, character: at };
    }
    throw new ToolError(`'${symbol}' does not occur in ${path}`);
  }
  if (line === undefined || column === undefined)
    throw new ToolError("give line and column (1-based, as file_read shows lines), or symbol");
  return { line: line - 1, character: Math.max(0, column - 1) };
}

function findDeclared(
  symbols: readonly (DocumentSymbol | SymbolInformation)[],
  name: string,
): Position | undefined {
  for (const s of symbols) {
    if (s.name === name) return "selectionRange" in s ? s.selectionRange.start : undefined;
    if ("children" in s && s.children) {
      const inner = findDeclared(s.children, name);
      if (inner) return inner;
    }
  }
  return undefined;
}
