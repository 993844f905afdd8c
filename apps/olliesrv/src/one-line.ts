/**
 * `text` on one line, for a person to read: each run of control characters (newlines and tabs among them)
 * and line or paragraph separators becomes a space, runs of spaces one, and the ends are trimmed; then at
 * most `max` characters (see shorten).
 */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const flat = text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/ {2,}/g, " ")
    .trim();
  return shorten(flat, max);
}

/**
 * `text` when it has at most `max` characters, else its first `max - 1` and `…`. Characters are code points,
 * so none is cut in half.
 */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join("")}…`;
}
