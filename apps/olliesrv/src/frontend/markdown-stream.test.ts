import { describe, expect, it } from "vitest";
import { terminalMarkdown } from "../cli/terminal-markdown.js";
import { MarkdownStream } from "./markdown-stream.js";

/** A renderer that shows which blocks it was given, whole. */
const brackets = (block: string) => `[${block}]`;

/** Pushes `text` a few characters at a time, as a model streams it; what was shown, flushed at the end. */
function streamed(text: string, size = 3): string[] {
  const md = new MarkdownStream(brackets);
  const shown: string[] = [];
  for (let i = 0; i < text.length; i += size) {
    const out = md.push(text.slice(i, i + size));
    if (out) shown.push(out);
  }
  const rest = md.flush();
  if (rest) shown.push(rest);
  return shown;
}

describe("the model's text, a block at a time", () => {
  it("renders each paragraph once it is ended by a blank line, and what is left at the flush", () => {
    expect(streamed("First paragraph\nstill the first.\n\nSecond one.\n\n\nThird")).toEqual([
      "[First paragraph\nstill the first.]\n\n",
      "[Second one.]\n\n",
      "[Third]\n",
    ]);
  });

  it("keeps a fenced code block whole, blank lines in it and all", () => {
    const text = "Code:\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n~~~\nx\n\n~~~\n\nAfter.";
    expect(streamed(text, 2)).toEqual([
      "[Code:]\n\n",
      "[```js\nconst a = 1;\n\nconst b = 2;\n```]\n\n",
      "[~~~\nx\n\n~~~]\n\n",
      "[After.]\n",
    ]);
  });

  it("waits for what follows a blank line before it ends the block, and shows nothing for blank text", () => {
    const md = new MarkdownStream(brackets);
    expect(md.push("A list:\n- one\n\n")).toBe("");
    expect(md.push("- two\n")).toBe("[A list:\n- one]\n\n");
    expect(md.flush()).toBe("[- two]\n");
    expect(md.push("\n\n")).toBe("");
    expect(md.flush()).toBe("");
  });

  it("renders Markdown for a colour terminal: no ** or # left, emphasis and code in colour, lines wrapped", () => {
    const render = terminalMarkdown(40);
    const out = render(
      "# A title\n\nSome **bold** text and `code` in a line long enough to be wrapped at forty.",
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it removes
    const plain = out.replace(/\u001b\[[0-9;]*m/g, "");
    expect(plain).toContain("A title");
    expect(plain).not.toContain("#");
    expect(plain).not.toContain("**");
    expect(plain).toContain("Some bold text and code");
    expect(out).toContain("\u001b[1mbold\u001b[22m");
    for (const line of plain.split("\n")) expect(line.length).toBeLessThanOrEqual(40);
  });
});
