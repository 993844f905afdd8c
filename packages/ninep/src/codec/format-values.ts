import { QT } from "./constants.js";
import type { Qid } from "./qid.js";
import { isDontTouchQid } from "./stat.js";

/** The qid type bits as transcripts spell them (parse-message reads them back). */
export const QID_TYPE_LETTERS: ReadonlyArray<[number, string]> = [
  [QT.DIR, "d"],
  [QT.APPEND, "a"],
  [QT.EXCL, "l"],
  [QT.MOUNT, "m"],
  [QT.AUTH, "A"],
  [QT.TMP, "t"],
];

/** Quotes a string for the text form: '…' with \\, \\', \\n, \\t and \\xNN escapes. */
export function quote(s: string | Uint8Array, max = Number.POSITIVE_INFINITY): string {
  const bytes =
    typeof s === "string" ? Buffer.from(s, "utf8") : Buffer.from(s.buffer, s.byteOffset, s.byteLength);
  const shown = bytes.length > max ? bytes.subarray(0, max) : bytes;
  let out = "'";
  const text = shown.toString("utf8");
  const roundTrips = Buffer.byteLength(text, "utf8") === shown.length && !text.includes("\ufffd");
  if (roundTrips) {
    for (const ch of text) {
      out += escapeChar(ch);
    }
  } else {
    for (const b of shown) {
      out +=
        b >= 0x20 && b < 0x7f ? escapeChar(String.fromCharCode(b)) : `\\x${b.toString(16).padStart(2, "0")}`;
    }
  }
  out += "'";
  if (shown.length < bytes.length) out += `…+${bytes.length - shown.length}`;
  return out;
}

function escapeChar(ch: string): string {
  switch (ch) {
    case "\\":
      return "\\\\";
    case "'":
      return "\\'";
    case "\n":
      return "\\n";
    case "\t":
      return "\\t";
    default: {
      const code = ch.codePointAt(0)!;
      return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, "0")}` : ch;
    }
  }
}

export function formatQid(q: Qid): string {
  if (isDontTouchQid(q)) return "~";
  let letters = "";
  let known = 0;
  for (const [bit, letter] of QID_TYPE_LETTERS) {
    known |= bit;
    if (q.type & bit) letters += letter;
  }
  if (q.type & ~known) letters = `0x${q.type.toString(16)}`;
  return letters ? `(${q.path} ${q.version} ${letters})` : `(${q.path} ${q.version})`;
}
