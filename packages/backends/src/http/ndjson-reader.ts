import { Utf8Text } from "./utf8-text.js";

/**
 * Splits a byte stream into lines (NDJSON), yielding the complete lines of each chunk as one array. The
 * last line is delivered even without its newline.
 */
export async function* readLines(body: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  const text = new Utf8Text();
  let carry = "";
  for await (const chunk of body) {
    const piece = text.write(chunk);
    // Without a newline, keep gathering: splitting a long line at every chunk would be quadratic.
    if (!piece.includes("\n")) {
      carry += piece;
      continue;
    }
    const lines = (carry + piece).split("\n");
    carry = lines.pop()!;
    const full = lines.map((l) => l.replace(/\r$/, "")).filter((l) => l.trim() !== "");
    if (full.length > 0) yield full;
  }
  const last = (carry + text.end()).trim();
  if (last !== "") yield [last];
}
