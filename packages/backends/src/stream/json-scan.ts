/**
 * Reads the JSON string literal whose opening quote is at `quoteAt`: its value and the index just past its
 * closing quote, or undefined if there is no well-formed literal there. Strings without escapes are sliced
 * out without JSON.parse.
 */
export function readJsonString(data: string, quoteAt: number): { value: string; end: number } | undefined {
  if (data.charCodeAt(quoteAt) !== 34) return undefined;
  let from = quoteAt + 1;
  for (;;) {
    const q = data.indexOf('"', from);
    if (q < 0) return undefined;
    let slashes = 0;
    while (data.charCodeAt(q - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) {
      const firstSlash = data.indexOf("\\", quoteAt + 1);
      if (firstSlash < 0 || firstSlash > q) return { value: data.slice(quoteAt + 1, q), end: q + 1 };
      try {
        return { value: JSON.parse(data.slice(quoteAt, q + 1)) as string, end: q + 1 };
      } catch {
        return undefined;
      }
    }
    from = q + 1;
  }
}

/**
 * Whether `literal` occurs in `data` at `at`. A slice compared with `===` — several times faster on V8 than
 * `startsWith` with a position over the sliced strings an SSE parser hands out.
 */
export function hasAt(data: string, at: number, literal: string): boolean {
  return data.slice(at, at + literal.length) === literal;
}

/**
 * The value of the JSON string literal that opens at `open` and must close at `close` (the index of its
 * closing quote), or undefined if the literal there is malformed or closes elsewhere. The common case — no
 * quote or backslash inside — costs two searches and one slice.
 */
export function stringLiteralAt(data: string, open: number, close: number): string | undefined {
  if (data.charCodeAt(open) === 34 && data.indexOf('"', open + 1) === close) {
    const slash = data.indexOf("\\", open + 1);
    if (slash < 0 || slash > close) return data.slice(open + 1, close);
  }
  const s = readJsonString(data, open);
  return s !== undefined && s.end === close + 1 ? s.value : undefined;
}
