import { escapeRegExp, LITERAL, literalValue } from "../../stream/json-scan.js";

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
  /** The whole shape of an event with the last head seen — up to its literal — with its kind and index. */
  private lastShape: RegExp | undefined;
  private lastHead = "";
  private lastKind = NO_MATCH;

  match(data: string): number {
    const found = this.lastShape?.exec(data);
    if (found) {
      this.fragment = literalValue(found[1]!);
      return this.lastKind;
    }
    // Not the last head: learn this one, if it is a delta's, and match again.
    return this.learnHead(data) ? this.match(data) : NO_MATCH;
  }

  /** Reads an event's head in full and remembers it; false if it is no delta's or nothing new. */
  private learnHead(data: string): boolean {
    if (!data.startsWith(HEAD)) return false;
    let p = HEAD.length;
    let index = 0;
    while (data.charCodeAt(p) >= 48 && data.charCodeAt(p) <= 57)
      index = index * 10 + data.charCodeAt(p++) - 48;
    if (p === HEAD.length) return false;
    for (const [kind, literal] of KINDS) {
      if (!data.startsWith(literal, p)) continue;
      const head = data.slice(0, p + literal.length);
      // The last head again: the event failed its shape for another reason, and fails it still.
      if (head === this.lastHead) return false;
      this.lastHead = head;
      this.lastShape = new RegExp(`^${escapeRegExp(head)}${LITERAL}\\}\\}$`);
      this.lastKind = kind;
      this.index = index;
      return true;
    }
    return false;
  }
}
