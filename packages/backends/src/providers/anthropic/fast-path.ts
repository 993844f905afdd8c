import { hasAt, stringLiteralAt } from "../../stream/json-scan.js";

const HEAD = '{"type":"content_block_delta","index":';
const TEXT = ',"delta":{"type":"text_delta","text":';
const THINKING = ',"delta":{"type":"thinking_delta","thinking":';
const JSON_DELTA = ',"delta":{"type":"input_json_delta","partial_json":';

export const NO_MATCH = 0;
export const TEXT_DELTA = 1;
export const THINKING_DELTA = 2;
export const INPUT_JSON_DELTA = 3;

const KINDS: ReadonlyArray<readonly [number, string]> = [
  [TEXT_DELTA, TEXT],
  [THINKING_DELTA, THINKING],
  [INPUT_JSON_DELTA, JSON_DELTA],
];

/**
 * Recognizes, without JSON.parse, the content_block_delta events that make up almost all of a long
 * Anthropic stream — text, thinking or tool-input fragments — when they are written exactly as Anthropic
 * writes them. Anything else returns NO_MATCH and is parsed in full.
 */
export class AnthropicFastPath {
  fragment = "";
  index = 0;
  /** The head of the last event matched — up to its literal's opening quote — with its kind and index. */
  private lastHead = "";
  private lastKind = NO_MATCH;

  match(data: string): number {
    let p: number;
    let kind: number;
    if (this.lastHead !== "" && hasAt(data, 0, this.lastHead)) {
      p = this.lastHead.length;
      kind = this.lastKind;
    } else {
      p = this.head(data);
      if (p < 0) return NO_MATCH;
      kind = this.lastKind;
    }
    // After the literal, exactly the ends of the delta and of the event.
    const end = data.length - 2;
    if (data.charCodeAt(end) !== 125 || data.charCodeAt(end + 1) !== 125) return NO_MATCH;
    const fragment = stringLiteralAt(data, p, end - 1);
    if (fragment === undefined) return NO_MATCH;
    this.fragment = fragment;
    return kind;
  }

  /** Reads an event's head in full and remembers it; the literal's position, or -1. */
  private head(data: string): number {
    if (!hasAt(data, 0, HEAD)) return -1;
    let p = HEAD.length;
    let index = 0;
    while (data.charCodeAt(p) >= 48 && data.charCodeAt(p) <= 57)
      index = index * 10 + data.charCodeAt(p++) - 48;
    if (p === HEAD.length) return -1;
    for (const [kind, literal] of KINDS) {
      if (hasAt(data, p, literal)) {
        p += literal.length;
        this.lastHead = data.slice(0, p);
        this.lastKind = kind;
        this.index = index;
        return p;
      }
    }
    return -1;
  }
}
