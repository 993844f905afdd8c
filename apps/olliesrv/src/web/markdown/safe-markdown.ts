import { Marked, type Tokens } from "marked";
import { escapeHtml, type SafeHtml, trustedMarkup } from "../html/html.js";

/** The links a page may follow: the web, mail, and places in the page or on this server. */
const SAFE_LINK = /^(https?:|mailto:|#|\/(?![/\\]))/i;

/**
 * Markdown as the web view shows a model's text. marked on its own passes raw HTML through, and keeps any
 * link scheme (`javascript:`) and remote images; here raw HTML is shown as text, a link with another scheme
 * becomes its text alone, and an image becomes its description and address (a page loads nothing a model
 * names). Everything else marked escapes itself.
 */
const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    link({ href, title, tokens }: Tokens.Link): string {
      const text = this.parser.parseInline(tokens);
      if (!SAFE_LINK.test(href.trim())) return text;
      const titled = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${titled} rel="noopener noreferrer nofollow">${text}</a>`;
    },
    image({ href, text }: Tokens.Image): string {
      return `<span class="image">[image: ${escapeHtml(text)}] ${escapeHtml(href)}</span>`;
    },
  },
});

/** One block (or more) of a model's Markdown, as safe markup. */
export function safeMarkdown(markdown: string): SafeHtml {
  try {
    return trustedMarkup(marked.parse(markdown, { async: false }));
  } catch {
    // A block marked cannot take is shown as the model wrote it.
    return trustedMarkup(`<p>${escapeHtml(markdown)}</p>`);
  }
}
