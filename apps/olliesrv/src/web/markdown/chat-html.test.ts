import { ChatPieces } from "@ollie/client";
import { describe, expect, it } from "vitest";
import { ChatHtml } from "./chat-html.js";
import { transcript } from "./transcript.js";

const CHAT = [
  "» list the files\n",
  "please\n",
  "\n",
  "Looking **now**.\n",
  "\n",
  '→ shell {"command":"ls"}\n',
  "← shell: a.txt\n",
  "Found <script>alert(1)</script> one file.\n",
  "\n",
  "! budget: spent\n",
].join("");

describe("ChatHtml", () => {
  it("makes a transcript: prompts, Markdown, calls with their results, notes", () => {
    const { html, tail, settled } = transcript(CHAT, 0);
    expect(html.text).toContain('<span class="said">list the files\nplease</span>');
    expect(html.text).toContain("<p>Looking <strong>now</strong>.</p>");
    expect(html.text).toContain(
      '<span class="tool">shell</span> <code>{&quot;command&quot;:&quot;ls&quot;}</code></summary><pre class="result" data-tool="shell">a.txt</pre></details>',
    );
    expect(html.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html.text).not.toContain("<script>");
    expect(html.text).toContain('<p class="error">! budget: spent</p>');
    expect(tail).toBe("");
    expect(settled).toBe(Buffer.byteLength(CHAT));
  });

  it("ends a transcript where the text still open begins, for the live stream to go on from", () => {
    const open = "» hi\n\nA *stre";
    const { html, tail, settled } = transcript(open, 10);
    expect(html.text).toContain('<span class="said">hi</span>');
    expect(tail).toBe("A *stre");
    expect(settled).toBe(10 + Buffer.byteLength("» hi\n\n"));
    const half = transcript("» hi\n\n→ shell {}\n← sh", 0);
    expect(half.tail).toBe("← sh");
  });

  it("streams the model's text as text until its block ends, then as markup", () => {
    const chat = new ChatHtml();
    const pieces = new ChatPieces(0);
    expect(chat.push(pieces.push("Some *te"))).toEqual([{ op: "tail", text: "Some *te" }]);
    expect(chat.push(pieces.push("xt*\n\nNext"))).toEqual([
      { op: "append", html: "<p>Some <em>text</em></p>\n\n" },
      { op: "tail", text: "Next" },
    ]);
  });

  it("says the tail at its first push, so a page's stale one is replaced", () => {
    expect(new ChatHtml().push(new ChatPieces(0).push("→ shell"))).toEqual([{ op: "tail", text: "" }]);
  });

  it("gives each result with its tool's name, oldest call first", () => {
    const chat = new ChatHtml();
    const pieces = new ChatPieces(100);
    chat.push(pieces.push("→ file_read {}\n→ shell {}\n"));
    expect(chat.push(pieces.push("← shell: done\n← file_read: text\n"))).toEqual([
      { op: "result", tool: "shell", text: "done" },
      { op: "result", tool: "file_read", text: "text" },
    ]);
  });
});

describe("a finished turn", () => {
  it("has its last block rendered, with no blank line after it", () => {
    const open = transcript("» hi\n\nThe *end*.\n", 0);
    expect(open.tail).toBe("The *end*.\n");
    const done = transcript("» hi\n\nThe *end*.\n", 0, true);
    expect(done.html.text).toContain("<p>The <em>end</em>.</p>");
    expect(done.tail).toBe("");
  });
});
