// ollie:tool web_fetch
// ollie:description Fetch a web page (http or https) and return it as Markdown: the main article when the
// ollie:description page has one, else its whole text. Text and JSON come as served; images, PDFs and other
// ollie:description binaries are described, not shown. Follows up to 10 redirects; the answer starts with the
// ollie:description final URL, the status and the content type.
// ollie:param url string required  The http:// or https:// URL
// ollie:param max_chars integer  The most characters of content to return (default 20000, at most 100000)
// ollie:param raw boolean  Return the text as served (an HTML page's source), not converted
// ollie:parallel read
// ollie:tier cold
// ollie:timeout 60
import { STATUS_CODES } from "node:http";
import { type ContentKind, contentKind, decodeBody, type MediaType, mediaType } from "./lib/content-kind.js";
import { htmlText, htmlToMarkdown } from "./lib/html-markdown.js";
import {
  type Arrival,
  type BodyRead,
  fetchFollowing,
  isWebUrl,
  readCapped,
  redirectChain,
} from "./lib/http-fetch.js";
import { numberArg, stringArg, ToolError, tool } from "./lib/tool-io.js";

const MAX_REDIRECTS = 10;
/** For the whole fetch, redirects and body included; the tool's own timeout leaves room to convert. */
const TIME_LIMIT_S = 30;
/** The most of a body read: beyond it the rest is not fetched (pages this large are mostly scripts). */
const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** An error page is read only for an excerpt. */
const ERROR_BODY_BYTES = 64 * 1024;
const ERROR_EXCERPT_CHARS = 600;
const DEFAULT_CHARS = 20_000;
const MAX_CHARS = 100_000;

const REQUEST_HEADERS = {
  "user-agent": "Ollie-web_fetch/1 (+https://github.com/ollie-agent/ollie)",
  accept:
    "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.8",
};

const count = (n: number) => n.toLocaleString("en-US");

await tool(async (args) => {
  const url = urlArg(args);
  const maxChars = Math.min(numberArg(args, "max_chars", DEFAULT_CHARS), MAX_CHARS);
  if (maxChars === 0) throw new ToolError("argument 'max_chars' must be at least 1");
  const raw = args.raw === true || args.raw === "true";
  const signal = AbortSignal.timeout(TIME_LIMIT_S * 1000);
  const arrival = await fetchFollowing(url, {
    maxRedirects: MAX_REDIRECTS,
    signal,
    seconds: TIME_LIMIT_S,
    headers: REQUEST_HEADERS,
  });
  const { response } = arrival;
  const failed = response.status >= 400;
  const { body, stopped } = await readCapped(response, failed ? ERROR_BODY_BYTES : MAX_BODY_BYTES, signal);
  const type = mediaType(response.headers.get("content-type"));
  const kind = contentKind(type, body);
  const header = headerLines(arrival);
  if (failed)
    throw new ToolError([...header, `The page says: ${excerpt(body, type, kind, arrival.url)}`].join("\n"));

  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (stopped) header.push(`Cut: ${cutNote(stopped, body.length, declared)}`);
  if (kind === "binary") {
    const size = stopped
      ? Number.isFinite(declared)
        ? `${count(declared)} bytes`
        : `more than ${count(body.length)} bytes`
      : `${count(body.length)} bytes`;
    return `${header.join("\n")}\n\n[${type?.mime ?? "binary data"}, ${size}: not text, not shown]`;
  }
  let content = decodeBody(body, type, kind);
  if (kind === "html" && !raw) {
    const page = converted(content, arrival.url);
    header.push(...page.lines);
    content = page.text;
  }
  if (content.trim() === "") return `${header.join("\n")}\n\n(no text)`;
  return `${header.join("\n")}\n\n${capped(content, maxChars)}`;
});

function urlArg(args: Record<string, unknown>): URL {
  const text = stringArg(args, "url", true).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError(`'${text}' is not a URL (give it whole, starting https:// or http://)`);
  }
  if (!isWebUrl(url)) throw new ToolError(`only http and https URLs are fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new ToolError("a URL with a user name or password is not fetched");
  return url;
}

function headerLines({ response, url, hops }: Arrival): string[] {
  const lines = [
    `URL: ${url.href}`,
    `Status: ${response.status} ${response.statusText || STATUS_CODES[response.status] || ""}`.trimEnd(),
    `Content-Type: ${response.headers.get("content-type") ?? "(none given)"}`,
  ];
  if (hops.length > 0) lines.push(`Redirected: ${redirectChain(hops, url)}`);
  return lines;
}

/** An HTML page as Markdown, with the header lines that say what was taken from it. */
function converted(html: string, url: URL): { lines: string[]; text: string } {
  try {
    const page = htmlToMarkdown(html, url.href);
    const shown = page.source === "article" ? "the main article" : "the page";
    return {
      lines: [...(page.title ? [`Title: ${page.title}`] : []), `Shown: ${shown}, as Markdown`],
      text: page.markdown,
    };
  } catch (error) {
    // Markup the parser cannot take is still worth reading as it is.
    return {
      lines: [`Shown: the page as served (it could not be converted: ${(error as Error).message})`],
      text: html,
    };
  }
}

function cutNote(stopped: NonNullable<BodyRead["stopped"]>, read: number, declared: number): string {
  const of = Number.isFinite(declared) ? ` of ${count(declared)}` : "";
  if (stopped.by === "limit")
    return `only the first ${count(read)} bytes${of} were read (the limit); the rest was not fetched`;
  if (stopped.by === "time") return `only ${count(read)} bytes${of} arrived within ${TIME_LIMIT_S} s`;
  return `the connection broke after ${count(read)} bytes${of} (${stopped.cause})`;
}

function capped(content: string, maxChars: number): string {
  if (content.length <= maxChars) return content;
  // Cut at a line end when one is near, so the last line shown is whole.
  const lineEnd = content.lastIndexOf("\n", maxChars);
  const end = lineEnd > maxChars * 0.8 ? lineEnd : maxChars;
  const more = maxChars < MAX_CHARS ? `; max_chars shows up to ${count(MAX_CHARS)}` : "";
  return `${content.slice(0, end)}\n\n[cut: ${count(end)} of ${count(content.length)} characters shown${more}]`;
}

function excerpt(body: Buffer, type: MediaType | undefined, kind: ContentKind, url: URL): string {
  if (kind === "binary") return `[${type?.mime ?? "binary data"}, ${count(body.length)} bytes]`;
  const text = decodeBody(body, type, kind);
  const plain = (kind === "html" ? htmlText(text, url.href) : text).replace(/\s+/g, " ").trim();
  if (plain === "") return "(nothing)";
  return plain.length > ERROR_EXCERPT_CHARS ? `${plain.slice(0, ERROR_EXCERPT_CHARS)}…` : plain;
}
