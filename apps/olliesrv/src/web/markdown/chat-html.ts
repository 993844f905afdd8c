import type { ChatPiece } from "@ollie/client";
import { MarkdownStream } from "../../frontend/markdown-stream.js";
import { html, type SafeHtml } from "../html/html.js";
import { safeMarkdown } from "./safe-markdown.js";

/**
 * What the page does with a stretch of the chat: add finished markup to the transcript, show the model's
 * text still streaming (as text, until its block ends), or put a result into the oldest call of that tool
 * still waiting for one.
 */
export type ChatChange =
  | { op: "append"; html: string }
  | { op: "tail"; text: string }
  | { op: "result"; tool: string; text: string };

/**
 * An agent's chat as the web view shows it, from pieces as `Agent.chat()` yields them: the model's text as
 * Markdown a block at a time, a prompt as a block of its own, each tool call as a disclosure its result goes
 * into, and olliesrv's notes, retries and errors as lines of their kind. The same renderer makes a page's
 * transcript and the changes streamed to it, so a page reloaded shows what the live one did.
 */
export class ChatHtml {
  private readonly text = new MarkdownStream((markdown) => safeMarkdown(markdown).text);
  /** The line being gathered (calls, results, notes and prompts are shown whole), and where it began. */
  private line = "";
  private lineKind: ChatPiece["kind"] = "text";
  private lineOffset = 0;
  private prompt: string[] = [];
  private promptOffset = 0;
  private end = 0;
  /** The tail the page shows; unknown at first, so the first push says it. */
  private shownTail: string | undefined;

  /**
   * Where what is not yet final begins: the open prompt, the line being gathered, or the model's text still
   * held. A page's transcript ends here, and its live stream goes on from here.
   */
  get settled(): number {
    if (this.prompt.length > 0) return this.promptOffset;
    if (this.line !== "") return this.lineOffset;
    return this.end - Buffer.byteLength(this.text.held);
  }

  /** `from`: the byte position of the first piece to come. */
  constructor(from = 0) {
    this.end = from;
  }

  /** The byte position after the last piece pushed. */
  get position(): number {
    return this.end;
  }

  /** The changes the next pieces make. */
  push(pieces: readonly ChatPiece[]): ChatChange[] {
    const changes: ChatChange[] = [];
    for (const piece of pieces) {
      this.end = piece.offset + Buffer.byteLength(piece.text);
      if (piece.kind === "text") {
        this.endPrompt(changes);
        const ready = this.text.push(piece.text);
        if (ready !== "") changes.push({ op: "append", html: ready });
        continue;
      }
      if (this.line === "") this.beginLine(piece, changes);
      this.line += piece.text;
      if (piece.text.endsWith("\n")) this.endLine(changes);
    }
    this.showTail(changes);
    return changes;
  }

  /**
   * Renders what is held as final: the turn ended, so the model's last block will not go on (its text has no
   * blank line after it to end it).
   */
  flush(): ChatChange[] {
    const changes: ChatChange[] = [];
    const rest = this.text.flush();
    if (rest !== "") changes.push({ op: "append", html: rest });
    this.endPrompt(changes);
    this.showTail(changes);
    return changes;
  }

  private beginLine(piece: ChatPiece, changes: ChatChange[]): void {
    const rest = this.text.flush();
    if (rest !== "") changes.push({ op: "append", html: rest });
    if (piece.kind !== "prompt") this.endPrompt(changes);
    else if (this.prompt.length === 0) this.promptOffset = piece.offset;
    this.lineKind = piece.kind;
    this.lineOffset = piece.offset;
  }

  private endLine(changes: ChatChange[]): void {
    const line = this.line.replace(/\n$/, "");
    this.line = "";
    if (this.lineKind === "prompt") {
      if (line === "") this.endPrompt(changes);
      else this.prompt.push(this.prompt.length === 0 ? line.replace(/^» ?/, "") : line);
    } else if (this.lineKind === "call") changes.push({ op: "append", html: call(line).text });
    else if (this.lineKind === "result") changes.push(result(line));
    else changes.push({ op: "append", html: html`<p class="${this.lineKind}">${line}</p>`.text });
  }

  private endPrompt(changes: ChatChange[]): void {
    if (this.prompt.length === 0) return;
    const text = this.prompt.join("\n");
    this.prompt = [];
    changes.push({ op: "append", html: promptBlock(text).text });
  }

  /** The open block of the model's text, when it changed. */
  private showTail(changes: ChatChange[]): void {
    const tail = this.text.held;
    if (tail === this.shownTail) return;
    this.shownTail = tail;
    changes.push({ op: "tail", text: tail });
  }
}

/** A prompt, as the transcript and the history page show it. */
export function promptBlock(text: string): SafeHtml {
  return html`<div class="prompt"><span class="mark" aria-hidden="true">»</span> <span class="said">${text}</span></div>`;
}

/** `→ NAME ARGS`: a disclosure whose result is `(running)` until it comes. */
function call(line: string): SafeHtml {
  const body = line.replace(/^→ ?/, "");
  const name = body.split(" ", 1)[0] ?? "";
  const args = body.slice(name.length).trim();
  return html`<details class="call"><summary><span class="mark" aria-hidden="true">→</span> <span class="tool">${name}</span> <code>${args}</code></summary><pre class="result" data-tool="${name}" data-pending="">(running)</pre></details>`;
}

/** `← NAME: FIRST LINE`. */
function result(line: string): ChatChange {
  const body = line.replace(/^← ?/, "");
  const tool = body.split(":", 1)[0] ?? "";
  return { op: "result", tool, text: body.slice(tool.length + 1).trimStart() };
}
