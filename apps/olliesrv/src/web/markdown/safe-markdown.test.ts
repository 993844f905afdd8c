import { describe, expect, it } from "vitest";
import { safeMarkdown } from "./safe-markdown.js";

const rendered = (markdown: string) => safeMarkdown(markdown).text;

describe("safeMarkdown", () => {
  it("renders Markdown", () => {
    expect(rendered("# Title\n\n*one* and `two`")).toBe(
      "<h1>Title</h1>\n<p><em>one</em> and <code>two</code></p>\n",
    );
  });

  it.each([
    ["<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    ["<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"],
    ["<svg onload=alert(1)>", "&lt;svg onload=alert(1)&gt;"],
    ["text <b onclick=alert(1)>bold</b>", "&lt;b onclick=alert(1)&gt;"],
    ["<!-- a comment -->", "&lt;!-- a comment --&gt;"],
    ["<scr<script>ipt>alert(1)</script>", "&lt;scr&lt;script&gt;ipt"],
    ["<div>\n\n*md*\n\n</div>", "&lt;div&gt;"],
    ["| a |\n|---|\n| <img src=x onerror=1> |", "&lt;img src=x onerror=1&gt;"],
  ])("shows raw HTML as text: %s", (markdown, escaped) => {
    const out = rendered(markdown);
    expect(out).toContain(escaped);
    expect(out).not.toMatch(/<(script|img|svg|b |div)/);
  });

  it.each([
    "[click](javascript:alert(1))",
    "[click](JAVASCRIPT:alert(1))",
    "[click]( javascript:alert(1))",
    "[click](data:text/html,<script>alert(1)</script>)",
    "[click](vbscript:msgbox)",
    "[click](//evil.example/x)",
    "[click](/\\evil.example/x)",
  ])("keeps only the text of a link with an unsafe address: %s", (markdown) => {
    const out = rendered(markdown);
    expect(out).not.toContain("<a");
    expect(out).toContain("click");
  });

  it("keeps web links, closed to the page that opened them", () => {
    expect(rendered("[docs](https://example.com/a?b=1&c=2)")).toContain(
      '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">docs</a>',
    );
  });

  it("loads no image: an image is its description and address", () => {
    const out = rendered('![a "cat"](https://example.com/cat.png)');
    expect(out).not.toContain("<img");
    expect(out).toContain("[image: a &quot;cat&quot;] https://example.com/cat.png");
  });

  it("escapes what breaks out of a fence's language", () => {
    const out = rendered('```"><img src=x onerror=1>\ncode\n```');
    expect(out).not.toContain("<img");
  });
});
