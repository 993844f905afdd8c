/**
 * HTML built from templates that escape every value put in them: the one way the web view makes markup,
 * so nothing a model, a tool or a file name says can become an element or an attribute.
 */

const SAFE = Symbol("SafeHtml");

/** Markup that is already safe: made by `html` or by the Markdown renderer, never from raw text. */
export interface SafeHtml {
  readonly [SAFE]: true;
  readonly text: string;
}

function safe(text: string): SafeHtml {
  return { [SAFE]: true, text };
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text as it reads, in an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

function isSafe(value: unknown): value is SafeHtml {
  return typeof value === "object" && value !== null && SAFE in value;
}

/** What a value in a template becomes: safe markup as it is, lists joined, nothing for absent ones. */
function part(value: unknown): string {
  if (value === undefined || value === null || value === false) return "";
  if (isSafe(value)) return value.text;
  if (Array.isArray(value)) return value.map(part).join("");
  return escapeHtml(String(value));
}

/** A template of markup: every value is escaped unless it is SafeHtml (or a list of them). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += part(values[i]) + (strings[i + 1] ?? "");
  return safe(out);
}

/**
 * Markup made elsewhere that is safe by construction (the Markdown renderer, which escapes what it is given).
 * The only door besides `html`: keep its callers few.
 */
export function trustedMarkup(text: string): SafeHtml {
  return safe(text);
}
