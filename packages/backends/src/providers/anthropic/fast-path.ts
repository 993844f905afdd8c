import { hasAt, readJsonString } from "../../stream/json-scan.js";

const HEAD = '{"type":"content_block_delta","index":';
const TEXT = ',"delta":{"type":"text_delta","text":';
const THINKING = ',"delta":{"type":"thinking_delta","thinking":';
const JSON_DELTA = ',"delta":{"type":"input_json_delta","partial_json":';

export const NO_MATCH = 0;
export const TEXT_DELTA = 1;
export const THINKING_DELTA = 2;
export const INPUT_JSON_DELTA = 3;

/**
 * Recognizes, without JSON.parse, the content_block_delta events that make up almost all of a long
 * Anthropic stream — text, thinking or tool-input fragments — when they are written exactly as Anthropic
 * writes them. Anything else returns NO_MATCH and is parsed in full.
 */
export class AnthropicFastPath {
  fragment = "";
  index = 0;

  match(data: string): number {
    if (!hasAt(data, 0, HEAD)) return NO_MATCH;
    let p = HEAD.length;
    const digits = p;
    let index = 0;
    while (data.charCodeAt(p) >= 48 && data.charCodeAt(p) <= 57)
      index = index * 10 + data.charCodeAt(p++) - 48;
    if (p === digits) return NO_MATCH;
    let kind: number;
    if (hasAt(data, p, TEXT)) {
      kind = TEXT_DELTA;
      p += TEXT.length;
    } else if (hasAt(data, p, THINKING)) {
      kind = THINKING_DELTA;
      p += THINKING.length;
    } else if (hasAt(data, p, JSON_DELTA)) {
      kind = INPUT_JSON_DELTA;
      p += JSON_DELTA.length;
    } else {
      return NO_MATCH;
    }
    const s = readJsonString(data, p);
    // After the literal, exactly the ends of the delta and of the event.
    if (s === undefined || s.end !== data.length - 2 || !hasAt(data, s.end, "}}")) return NO_MATCH;
    this.fragment = s.value;
    this.index = index;
    return kind;
  }
}
