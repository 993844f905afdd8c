/**
 * The index just past the closing quote of the string literal whose opening quote is at `quoteAt`, or -1
 * if there is none. Escapes are skipped over, not checked.
 */
function stringEnd(data: string, quoteAt: number): number {
  if (data.charCodeAt(quoteAt) !== 34) return -1;
  let from = quoteAt + 1;
  for (;;) {
    const q = data.indexOf('"', from);
    if (q < 0) return -1;
    let slashes = 0;
    while (data.charCodeAt(q - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/**
 * Reads the JSON string literal whose opening quote is at `quoteAt`: its value and the index just past its
 * closing quote, or undefined if there is no well-formed literal there. Strings without escapes are sliced
 * out without JSON.parse.
 */
export function readJsonString(data: string, quoteAt: number): { value: string; end: number } | undefined {
  const end = stringEnd(data, quoteAt);
  if (end < 0) return undefined;
  const slash = data.indexOf("\\", quoteAt + 1);
  if (slash < 0 || slash >= end) return { value: data.slice(quoteAt + 1, end - 1), end };
  try {
    return { value: JSON.parse(data.slice(quoteAt, end)) as string, end };
  } catch {
    return undefined;
  }
}

/**
 * A regular expression for a JSON string literal, its contents captured: characters other than a quote, a
 * backslash or a control character, and well-formed escapes. For matching a whole chunk in one native pass.
 */
export const LITERAL = '"((?:[^"\\\\\\u0000-\\u001f]|\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4}))*)"';

/** The value of contents LITERAL captured. */
export function literalValue(contents: string): string {
  return contents.includes("\\") ? (JSON.parse(`"${contents}"`) as string) : contents;
}

/** `text` as a regular expression that matches exactly it. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
