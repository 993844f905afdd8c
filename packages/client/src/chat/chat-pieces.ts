/**
 * What a line of an agent's chat is, by its first character (see olliesrv's NAMESPACE.md, "chat"):
 * `prompt` (`» `, and the lines of its block, to the blank line that ends it), `call` (`→ `), `result`
 * (`← `), `note` (`· `), `retry` (`~ `: retries, and the loop's asides), `error` (`! `), and `text`: the
 * model's own, and the blank lines between turns.
 */
export type ChatKind = "prompt" | "text" | "call" | "result" | "note" | "retry" | "error";

/**
 * A piece of an agent's chat as it streams: a part of one line (the newline included when the line ends
 * here), and the kind of line it belongs to. The chat is text for people — a model's reply may itself begin
 * a line with `→` — so take events (`Session.events`) for data; take this for showing the conversation.
 */
export interface ChatPiece {
  text: string;
  kind: ChatKind;
  /** The byte position in the chat where the piece begins: `chat({ from })` takes one to go on from there. */
  offset: number;
}

const MARKS: Readonly<Record<string, ChatKind>> = {
  "»": "prompt",
  "→": "call",
  "←": "result",
  "·": "note",
  "~": "retry",
  "!": "error",
};

/**
 * Cuts chat text, in chunks that may end anywhere, into pieces of one line each, and tells each line's kind.
 * A prompt is a block (`» TEXT`, its further lines, then a blank line): its lines are all `prompt`.
 */
export class ChatPieces {
  private atLineStart = true;
  private kind: ChatKind = "text";
  private inPrompt = false;

  /** `offset` is the byte position of the next text. */
  constructor(private offset: number) {}

  /** The pieces of the next text. */
  push(text: string): ChatPiece[] {
    const pieces: ChatPiece[] = [];
    for (const part of text.split(/(?<=\n)/)) {
      if (part === "") continue;
      if (this.atLineStart) this.kind = this.lineKind(part);
      pieces.push({ text: part, kind: this.kind, offset: this.offset });
      this.offset += Buffer.byteLength(part);
      this.atLineStart = part.endsWith("\n");
    }
    return pieces;
  }

  /** The kind of a line that begins with `part`. */
  private lineKind(part: string): ChatKind {
    if (this.inPrompt) {
      // The blank line ends the block, and belongs to it.
      if (part === "\n") this.inPrompt = false;
      return "prompt";
    }
    const kind = MARKS[part[0]!] ?? "text";
    if (kind === "prompt") this.inPrompt = true;
    return kind;
  }
}
