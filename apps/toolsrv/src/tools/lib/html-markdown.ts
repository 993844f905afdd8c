import { isProbablyReaderable, Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

/** A page as Markdown, and which part of it that is. */
export interface PageMarkdown {
  title: string;
  markdown: string;
  /** `article`: the main text Readability found (navigation, footers and asides left out); `page`: the whole body. */
  source: "article" | "page";
}

/**
 * The little of the DOM this file uses: the project compiles without TypeScript's DOM library, and linkedom
 * (a DOM for Node) provides these.
 */
interface DomElement {
  nodeName: string;
  parentNode: DomElement | null;
  nextSibling: unknown;
  children: ArrayLike<unknown>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  remove(): void;
}
interface DomDocument {
  title: string;
  body: DomElement | null;
  documentElement: DomElement;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
}

/** Elements whose text is never part of what a reader sees. */
const HIDDEN = ["script", "style", "noscript", "template"];

/**
 * Converts an HTML page to Markdown: the article Readability (Firefox's reader view) finds in it when the page
 * looks like one, else the whole body. Links and images are made absolute against `url` (or the page's
 * `<base>`), so they still lead somewhere once out of the page; `javascript:` links and inline `data:` images
 * are dropped, being noise to a reader.
 */
export function htmlToMarkdown(html: string, url: string): PageMarkdown {
  const document = parsePage(html, url);
  const title = document.title.trim();
  if (isProbablyReaderable(document)) {
    const article = new Readability(document, { serializer: (el) => el }).parse();
    const content = article?.content as unknown as DomElement | undefined | null;
    const markdown = content ? toMarkdown(content) : "";
    if (markdown !== "") {
      const heading = (article?.title ?? title).trim();
      return {
        title: heading,
        markdown: heading && !markdown.startsWith("# ") ? `# ${heading}\n\n${markdown}` : markdown,
        source: "article",
      };
    }
  }
  // Readability changed the document as it looked: start again from the page as served.
  const page = parsePage(html, url);
  return { title, markdown: toMarkdown(page.body ?? page.documentElement), source: "page" };
}

/** The page's text content as Markdown, for an excerpt (an error page's message). */
export function htmlText(html: string, url: string): string {
  const page = parsePage(html, url);
  return toMarkdown(page.body ?? page.documentElement);
}

function parsePage(html: string, url: string): DomDocument {
  // linkedom keeps a fragment out of <body> unless the markup opens the document itself.
  const whole = /<html[\s>]/i.test(html)
    ? html
    : /<body[\s>]/i.test(html)
      ? `<html>${html}</html>`
      : `<html><head></head><body>${html}</body></html>`;
  const { document } = parseHTML(whole) as unknown as { document: DomDocument };
  for (const el of document.querySelectorAll(HIDDEN.join(","))) el.remove();
  const base = absolute(document.querySelector("base[href]")?.getAttribute("href") ?? "", url) ?? url;
  for (const a of document.querySelectorAll("a[href]")) {
    const href = a.getAttribute("href")!.trim();
    const target = /^javascript:/i.test(href) || href.startsWith("#") ? undefined : absolute(href, base);
    if (target === undefined) a.removeAttribute("href");
    else a.setAttribute("href", target);
  }
  for (const img of document.querySelectorAll("img")) {
    const src = img.getAttribute("src")?.trim() ?? "";
    const target = /^data:/i.test(src) ? undefined : absolute(src, base);
    if (target === undefined || src === "") img.removeAttribute("src");
    else img.setAttribute("src", target);
  }
  return document;
}

function absolute(ref: string, base: string): string | undefined {
  try {
    return new URL(ref, base).href;
  } catch {
    return undefined;
  }
}

function toMarkdown(node: DomElement): string {
  return converter()
    .turndown(node)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function converter(): TurndownService {
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
  });
  turndown.remove(HIDDEN);
  // Turndown pads list markers to four columns; one space is as valid and costs a reader less.
  turndown.addRule("listItem", {
    filter: "li",
    replacement(content, node) {
      const parent = (node as unknown as DomElement).parentNode;
      let prefix = "- ";
      if (parent?.nodeName === "OL") {
        const given = Number(parent.getAttribute("start") ?? 1);
        const start = Number.isInteger(given) ? given : 1;
        prefix = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const paragraph = content.endsWith("\n");
      const text = content.replace(/^\n+|\n+$/g, "") + (paragraph ? "\n" : "");
      return prefix + text.replace(/\n/g, `\n${" ".repeat(prefix.length)}`) + (node.nextSibling ? "\n" : "");
    },
  });
  return turndown;
}
