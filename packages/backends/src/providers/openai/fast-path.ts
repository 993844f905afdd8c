import { hasAt, stringLiteralAt } from "../../stream/json-scan.js";

/** What `match` found: nothing it recognizes, a text fragment, or a fragment of call `index`'s arguments. */
export const NO_MATCH = 0;
export const TEXT = 1;
export const ARGS = 2;

const CHOICE = '"choices":[{"index":0,"delta":{';
/** How a chunk that finishes nothing and reports no usage ends, with and without the optional keys. */
const TAILS = [
  ',"logprobs":null,"finish_reason":null}],"usage":null}',
  ',"logprobs":null,"finish_reason":null}]}',
  ',"finish_reason":null}],"usage":null}',
  ',"finish_reason":null}]}',
];

/**
 * Recognizes, without JSON.parse, the chunks that make up almost all of a long chat-completions stream: a
 * text or tool-argument fragment and nothing else. Within one stream every chunk starts the same way (id,
 * object, created, model, fingerprint), so once a chunk has been checked in full, later ones only need that
 * prefix compared. Anything not recognized exactly — another key order, a finish reason, usage, an error,
 * extra keys — returns undefined and is parsed in full. An unescaped quote cannot occur inside a JSON
 * string, so content cannot forge the markers.
 */
export class OpenAiFastPath {
  private prefix = "";
  /** The fragment of the last match. */
  fragment = "";
  /** The call index of the last ARGS match. */
  index = 0;

  /** NO_MATCH, TEXT or ARGS; the fragment (and index) are left in the fields, to spare an allocation. */
  match(data: string): number {
    const prefix =
      this.prefix !== "" && data.slice(0, this.prefix.length) === this.prefix
        ? this.prefix
        : this.learn(data);
    if (prefix === undefined) return NO_MATCH;
    const tail = tailLength(data);
    if (tail < 0) return NO_MATCH;
    const end = data.length - tail;
    const p = prefix.length;
    if (hasAt(data, p, '"content":')) {
      // The literal must be followed by exactly the "}" that closes the delta, then the tail.
      const fragment = data.charCodeAt(end - 1) === 125 ? stringLiteralAt(data, p + 10, end - 2) : undefined;
      if (fragment === undefined) return NO_MATCH;
      this.fragment = fragment;
      return TEXT;
    }
    if (hasAt(data, p, '"tool_calls":[{"index":')) return this.args(data, p + 23, end);
    return NO_MATCH;
  }

  private args(data: string, from: number, end: number): number {
    let p = from;
    let index = 0;
    while (data.charCodeAt(p) >= 48 && data.charCodeAt(p) <= 57)
      index = index * 10 + data.charCodeAt(p++) - 48;
    if (p === from || !hasAt(data, p, ',"function":{"arguments":')) return NO_MATCH;
    // After the literal: the ends of function, the call, tool_calls and delta, then the tail.
    const fragment = hasAt(data, end - 4, "}}]}") ? stringLiteralAt(data, p + 25, end - 5) : undefined;
    if (fragment === undefined) return NO_MATCH;
    this.fragment = fragment;
    this.index = index;
    return ARGS;
  }

  /** Checks a chunk's beginning in full and remembers it for the chunks that follow. */
  private learn(data: string): string | undefined {
    const at = data.indexOf(CHOICE);
    if (at < 0 || data.lastIndexOf('"usage"', at) >= 0 || data.lastIndexOf('"error"', at) >= 0)
      return undefined;
    this.prefix = data.slice(0, at + CHOICE.length);
    return this.prefix;
  }
}

function tailLength(data: string): number {
  for (let i = 0; i < TAILS.length; i++) {
    const tail = TAILS[i]!;
    if (hasAt(data, data.length - tail.length, tail)) return tail.length;
  }
  return -1;
}
