import { escapeRegExp, LITERAL, literalValue, readJsonString } from "../../stream/json-scan.js";

/** What the fast path looks at in a parsed response. */
interface TextChunkShape {
  candidates?: Array<{ content?: { parts?: Array<{ text?: unknown }> }; finishReason?: unknown }>;
  usageMetadata?: unknown;
  error?: unknown;
  promptFeedback?: unknown;
}

/**
 * A usage object as Gemini writes it: counts, and lists of small objects of counts and modality names.
 * Anything else in that place (a string with a brace, a nested key that is not a count) does not match,
 * and the chunk is parsed in full.
 */
const KEY = '"[A-Za-z]+": ?';
const SCALAR = '(?:\\d+|"[A-Z_]+")';
const DETAIL = `\\{${KEY}${SCALAR}(?:, ?${KEY}${SCALAR})*\\}`;
const MEMBER = `${KEY}(?:\\d+|\\[(?:${DETAIL}(?:, ?${DETAIL})*)?\\])`;
const USAGE = `\\{(?:${MEMBER}(?:, ?${MEMBER})*)?\\}`;
const USAGE_AT = new RegExp(USAGE, "y");

const PROBE_TEXT = "\u0000";
const PROBE_LITERAL = '"\\u0000"';

/**
 * Recognizes, without JSON.parse, the chunks that make up almost all of a long Gemini stream: one
 * candidate whose content is one plain text part, then the cumulative usage. Within a stream everything
 * else in such a chunk stays the same, so once one has been parsed in full (`learn`), a later chunk
 * matches when it is the same head, a string literal, the same middle, a usage object and the same
 * suffix. The usage object is checked against the form Gemini writes it in and kept as text; only the
 * last one is ever parsed, because only the last one counts.
 */
export class GeminiFastPath {
  /** The learned shape: head, text literal, middle, usage object, suffix — the whole chunk. */
  private shape: RegExp | undefined;
  /** The text of the last match. */
  fragment = "";
  /** The usage object of the last match, as it was written. */
  usageText = "";

  match(data: string): boolean {
    const found = this.shape?.exec(data);
    if (!found) return false;
    const text = found[1]!;
    this.fragment = literalValue(text);
    this.usageText = found[2]!;
    return true;
  }

  /**
   * Learns the shape of `data`, just parsed in full as `parsed`, if it is a plain text chunk. The regions
   * that hold the text and the usage are found, then confirmed by putting probe values in their place and
   * parsing again: only if exactly those two values change is the shape taken.
   */
  learn(data: string, parsed: object): void {
    if (!isTextChunk(parsed)) return;
    const key = data.indexOf('"text"');
    const open = key < 0 ? -1 : skipColon(data, key + 6);
    const literal = open < 0 ? undefined : readJsonString(data, open);
    if (literal === undefined) return;
    const usageKey = data.indexOf('"usageMetadata"', literal.end);
    const usageStart = usageKey < 0 ? -1 : skipColon(data, usageKey + 15);
    const usageEnd = usageStart < 0 ? -1 : usageEndAt(data, usageStart);
    if (usageEnd < 0) return;
    const head = data.slice(0, open);
    const middle = data.slice(literal.end, usageStart);
    const suffix = data.slice(usageEnd);
    let probe: TextChunkShape;
    try {
      probe = JSON.parse(`${head}${PROBE_LITERAL}${middle}{}${suffix}`) as TextChunkShape;
    } catch {
      return;
    }
    if (!isTextChunk(probe) || probe.candidates?.[0]?.content?.parts?.[0]?.text !== PROBE_TEXT) return;
    if (JSON.stringify(probe.usageMetadata) !== "{}") return;
    this.shape = new RegExp(
      `^${escapeRegExp(head)}${LITERAL}${escapeRegExp(middle)}(${USAGE})${escapeRegExp(suffix)}$`,
    );
  }
}

/** One candidate, no finish reason, one part holding only text, no error or feedback, some usage. */
function isTextChunk(r: TextChunkShape): boolean {
  const candidate = r.candidates?.length === 1 ? r.candidates[0] : undefined;
  const part = candidate?.content?.parts?.length === 1 ? candidate.content.parts[0] : undefined;
  return (
    part !== undefined &&
    typeof part.text === "string" &&
    Object.keys(part).length === 1 &&
    candidate?.finishReason === undefined &&
    typeof r.usageMetadata === "object" &&
    r.error === undefined &&
    r.promptFeedback === undefined
  );
}

/** The index after the `:` (and any spaces around it) that follows a key ending at `at`, or -1. */
function skipColon(data: string, at: number): number {
  let p = at;
  while (data.charCodeAt(p) === 32) p++;
  if (data.charCodeAt(p) !== 58) return -1;
  p++;
  while (data.charCodeAt(p) === 32) p++;
  return p;
}

/** The index just past the usage object that opens at `open`, or -1 if none is written there. */
function usageEndAt(data: string, open: number): number {
  USAGE_AT.lastIndex = open;
  return USAGE_AT.test(data) ? USAGE_AT.lastIndex : -1;
}
