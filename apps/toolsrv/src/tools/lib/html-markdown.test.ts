import { describe, expect, it } from "vitest";
import { htmlText, htmlToMarkdown } from "./html-markdown.js";

const at = "https://example.org/docs/page.html";

describe("htmlToMarkdown", () => {
  it("converts a fragment as well as a whole document", () => {
    expect(htmlToMarkdown("<h2>Notes</h2><p>One <em>two</em> <code>three</code></p>", at)).toEqual({
      title: "",
      markdown: "## Notes\n\nOne _two_ `three`",
      source: "page",
    });
  });

  it("makes links and images absolute, against <base> when the page has one", () => {
    expect(htmlToMarkdown('<a href="../up">up</a> <img src="pic.png" alt="a pic">', at).markdown).toBe(
      "[up](https://example.org/up) ![a pic](https://example.org/docs/pic.png)",
    );
    const based =
      '<html><head><base href="https://cdn.example.net/v2/"></head><body><a href="x">x</a></body></html>';
    expect(htmlToMarkdown(based, at).markdown).toBe("[x](https://cdn.example.net/v2/x)");
  });

  it("drops javascript: links, fragment links and inline data: images, keeping their text", () => {
    const html =
      '<p><a href="javascript:void(0)">menu</a> <a href="#top">top</a> <img src="data:image/png;base64,AAAA" alt="x"></p>';
    expect(htmlToMarkdown(html, at).markdown).toBe("menu top");
  });

  it("writes lists with one space after the marker, ordered lists from their start", () => {
    expect(
      htmlToMarkdown('<ol start="3"><li>three</li><li>four<ul><li>nested</li></ul></li></ol>', at).markdown,
    ).toBe("3. three\n4. four\n   - nested");
  });

  it("keeps code blocks fenced", () => {
    expect(htmlToMarkdown("<pre><code>let x = 1;\nx++;</code></pre>", at).markdown).toBe(
      "```\nlet x = 1;\nx++;\n```",
    );
  });
});

describe("htmlText", () => {
  it("is the whole body, without scripts or styles", () => {
    expect(htmlText("<style>p{}</style><h1>Gone</h1><script>x()</script><p>away</p>", at)).toBe(
      "# Gone\n\naway",
    );
  });
});
