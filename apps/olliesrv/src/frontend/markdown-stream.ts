/** Turns one whole block of Markdown into what a terminal shows (see terminalMarkdown). */
export type BlockRenderer = (markdown: string) => string;

/**
 * The model's text as it streams, rendered a block at a time: text is held until a blank line outside a
 * fenced code block ends the block (a paragraph, a list, a fence, a table), then the block is rendered and
 * handed back, ending with a blank line as the text did. `flush()` renders what is held (the text ended: a
 * tool call, the turn's end). Nothing is shown twice, and a block is never cut in the middle: the renderer
 * sees each one whole.
 */
export class MarkdownStream {
  private pending = "";

  constructor(private readonly render: BlockRenderer) {}

  /** The text of the block still open: what a view shows as it is until the block is rendered. */
  get held(): string {
    return this.pending;
  }

  /** The next text of the model's; returns what is ready to show ("" while a block is still open). */
  push(text: string): string {
    this.pending += text;
    let out = "";
    for (;;) {
      const end = blockEnd(this.pending);
      if (end === undefined) return out;
      const block = this.pending.slice(0, end.at);
      this.pending = this.pending.slice(end.after);
      if (block.trim() !== "") out += `${this.rendered(block)}\n\n`;
    }
  }

  /** What is held, rendered (its line ended); "" when nothing is. */
  flush(): string {
    const block = this.pending;
    this.pending = "";
    return block.trim() === "" ? "" : `${this.rendered(block)}\n`;
  }

  private rendered(block: string): string {
    return this.render(block.replace(/\n+$/, "")).replace(/\n+$/, "");
  }
}

/** A fence's opening: three or more backticks or tildes, indented at most three spaces. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Where the first block of `text` ends — at the blank line after it (`at`), the blank lines taken too
 * (`after`) — or undefined while no blank line outside a fence has come, or the text after it may still
 * grow into more blank lines.
 */
function blockEnd(text: string): { at: number; after: number } | undefined {
  let fence: string | undefined;
  let start = 0;
  for (;;) {
    const newline = text.indexOf("\n", start);
    if (newline < 0) return undefined;
    const line = text.slice(start, newline);
    const opening = FENCE.exec(line)?.[1];
    if (fence === undefined && opening) fence = opening;
    else if (fence !== undefined && closes(line, fence)) fence = undefined;
    else if (fence === undefined && line.trim() === "" && start > 0) {
      let after = newline + 1;
      while (text.startsWith("\n", after)) after++;
      // The blank lines may go on in the next delta: the block ends once something else has come.
      if (after >= text.length) return undefined;
      return { at: start - 1, after };
    }
    start = newline + 1;
  }
}

/** Whether `line` closes a fence opened by `fence`: the same character, at least as many, nothing else. */
function closes(line: string, fence: string): boolean {
  const t = line.trim();
  return t.length >= fence.length && [...t].every((c) => c === fence[0]);
}
