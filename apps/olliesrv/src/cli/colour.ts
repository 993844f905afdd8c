/**
 * Colour for `ollie sh` and `ollie top`, as plain ANSI SGR codes. A handful of codes does not justify a
 * dependency: no library would do more here than decide when to colour, and that rule is ours to keep the
 * same everywhere (a terminal, `NO_COLOR` unset or empty, a `TERM` that is not `dumb`).
 */

/** Whether text written to `stream` should be coloured. */
export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== "dumb";
}

export type Paint = (text: string) => string;

export interface Palette {
  dim: Paint;
  bold: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
}

const sgr =
  (on: number, off: number): Paint =>
  (text) =>
    text === "" ? "" : `\u001b[${on}m${text}\u001b[${off}m`;

const plain: Paint = (text) => text;

export function palette(colour: boolean): Palette {
  if (!colour) return { dim: plain, bold: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    dim: sgr(2, 22),
    bold: sgr(1, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

/**
 * Colours the chat as it streams, a line at a time by its first character (see NAMESPACE.md's chat): tool
 * calls, results, notes, retries and failures stand apart from the model's text. Chunks may end anywhere, so
 * it remembers whether the next one starts a line and how the line it continues began.
 */
export function chatPainter(p: Palette): (chunk: string) => string {
  const byMark: Record<string, Paint> = { "→": p.cyan, "←": p.dim, "·": p.dim, "~": p.yellow, "!": p.red };
  let atLineStart = true;
  let paint: Paint | undefined;
  return (chunk) => {
    let out = "";
    for (const piece of chunk.split(/(?<=\n)/)) {
      if (piece === "") continue;
      if (atLineStart) paint = byMark[[...piece][0]!];
      const ends = piece.endsWith("\n");
      const body = ends ? piece.slice(0, -1) : piece;
      out += (paint ? paint(body) : body) + (ends ? "\n" : "");
      atLineStart = ends;
    }
    return out;
  };
}
