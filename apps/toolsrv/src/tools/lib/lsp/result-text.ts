import { readFile } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";

/** Results shown unless the call asks for another bound. */
export const DEFAULT_LIMIT = 50;
/** The most a call may ask for. */
export const MAX_LIMIT = 500;
const LINE_CHARS = 160;

/** `file` as the model names it: relative to the working directory when inside it. */
export function displayPath(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/** Line `line0` (0-based) of `text`, trimmed and shortened to one screen line. */
export function lineOf(text: string | undefined, line0: number): string {
  const line = text?.split("\n")[line0]?.replace(/\r$/, "").trim() ?? "";
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line;
}

/** Reads files once for a result, remembering the texts already known (open documents). */
export class TextCache {
  private readonly texts = new Map<string, Promise<string | undefined>>();

  constructor(known: Iterable<[string, string]> = []) {
    for (const [file, text] of known) this.texts.set(file, Promise.resolve(text));
  }

  get(file: string): Promise<string | undefined> {
    let text = this.texts.get(file);
    if (!text) {
      text = readFile(file, "utf8").catch(() => undefined);
      this.texts.set(file, text);
    }
    return text;
  }
}

/** A place in a file, 0-based as LSP counts. */
export interface Place {
  file: string;
  line: number;
  character: number;
  /** Said after the place instead of the line's text, or before it (`note  text`). */
  note?: string;
}

/**
 * `path:line:col  text` for each place (1-based, the line's text trimmed), at most `limit` of them, then
 * `… and K more`.
 */
export async function placeLines(
  places: readonly Place[],
  cwd: string,
  texts: TextCache,
  limit: number,
): Promise<string[]> {
  const shown = places.slice(0, limit);
  const lines = await Promise.all(
    shown.map(async (p) => {
      const where = `${displayPath(cwd, p.file)}:${p.line + 1}:${p.character + 1}`;
      const text = lineOf(await texts.get(p.file), p.line);
      return p.note ? `${where}  ${p.note}${text ? `  | ${text}` : ""}` : `${where}  ${text}`;
    }),
  );
  if (places.length > shown.length) lines.push(`… and ${places.length - shown.length} more`);
  return lines;
}

/** The bound a call asked for, within [1, MAX_LIMIT]. */
export function limitOf(limit: number | undefined): number {
  return Math.min(MAX_LIMIT, Math.max(1, limit ?? DEFAULT_LIMIT));
}
