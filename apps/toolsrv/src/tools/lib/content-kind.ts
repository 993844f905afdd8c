/** How a response's body is shown: converted from HTML, as text, or summarised. */
export type ContentKind = "html" | "text" | "binary";

/** A Content-Type header taken apart: the MIME type in lower case, and the charset if it names one. */
export interface MediaType {
  mime: string;
  charset?: string;
}

export function mediaType(header: string | null | undefined): MediaType | undefined {
  if (!header) return undefined;
  const [type = "", ...params] = header.split(";");
  const mime = type.trim().toLowerCase();
  if (mime === "") return undefined;
  const charset = params
    .map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(p)?.[1])
    .find((c) => c !== undefined);
  return charset ? { mime, charset } : { mime };
}

/** Types served as text that are not `text/*`. */
const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/x-ndjson",
  "application/csv",
]);

/**
 * What the body is. The server's Content-Type decides; a body served without one, or as
 * `application/octet-stream` (which servers say when they do not know), is sniffed from its first bytes: NUL
 * bytes or bytes that are not UTF-8 make it binary, an opening `<!doctype html` or `<html` makes it HTML.
 */
export function contentKind(type: MediaType | undefined, head: Uint8Array): ContentKind {
  const mime = type?.mime;
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime?.startsWith("text/") || (mime && TEXT_TYPES.has(mime))) return "text";
  if (mime?.endsWith("+json") || mime?.endsWith("+xml")) return "text";
  if (mime !== undefined && mime !== "application/octet-stream") return "binary";
  return sniff(head);
}

function sniff(head: Uint8Array): ContentKind {
  const sample = head.subarray(0, 8192);
  if (sample.includes(0)) return "binary";
  let text: string;
  try {
    // `stream` lets the sample end inside a character without counting that as an error.
    text = new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true });
  } catch {
    return "binary";
  }
  return /^\s*(<!doctype\s+html|<html[\s>])/i.test(text.replace(/^\uFEFF/, "")) ? "html" : "text";
}

/**
 * The body as text, in the charset its Content-Type names or, for HTML, its `<meta charset>`; UTF-8 when
 * neither names one this runtime knows.
 */
export function decodeBody(body: Uint8Array, type: MediaType | undefined, kind: ContentKind): string {
  const label = type?.charset ?? (kind === "html" ? metaCharset(body) : undefined) ?? "utf-8";
  try {
    return new TextDecoder(label).decode(body);
  } catch {
    // A label this runtime does not know (it throws a RangeError).
    return new TextDecoder("utf-8").decode(body);
  }
}

function metaCharset(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.subarray(0, 4096)).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
}
