import { hasAt, stringLiteralAt } from "../../stream/json-scan.js";

/** What `match` found: nothing it recognizes, a text fragment, or a fragment of call `index`'s arguments. */
export const NO_MATCH = 0;
export const TEXT = 1;
export const ARGS = 2;

const CHOICE = '"choices":[{"index":0,"delta":{';
const TEXT_KEY = '"content":';
const ARGS_KEY = '"tool_calls":[{"index":';
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
 * extra keys — returns NO_MATCH and is parsed in full. An unescaped quote cannot occur inside a JSON
 * string, so content cannot forge the markers.
 */
export class OpenAiFastPath {
  private prefix = "";
  /** The prefix with the key of a text fragment: a text chunk is then recognized in one comparison. */
  private textHead = "";
  /** The tail the last chunk ended with; the next one almost always ends the same way. */
  private tail = TAILS[0]!;
  /** The fragment of the last match. */
  fragment = "";
  /** The call index of the last ARGS match. */
  index = 0;

  /** NO_MATCH, TEXT or ARGS; the fragment (and index) are left in the fields, to spare an allocation. */
  match(data: string): number {
    if (this.textHead !== "" && hasAt(data, 0, this.textHead)) {
      const end = data.length - this.tailLength(data);
      // The literal must be followed by exactly the "}" that closes the delta, then the tail.
      const fragment =
        end < data.length && data.charCodeAt(end - 1) === 125
          ? stringLiteralAt(data, this.textHead.length, end - 2)
          : undefined;
      if (fragment === undefined) return NO_MATCH;
      this.fragment = fragment;
      return TEXT;
    }
    const prefix =
      this.prefix !== "" && data.slice(0, this.prefix.length) === this.prefix
        ? this.prefix
        : this.learn(data);
    if (prefix === undefined) return NO_MATCH;
    const p = prefix.length;
    if (hasAt(data, p, TEXT_KEY)) {
      this.textHead = prefix + TEXT_KEY;
      return this.match(data);
    }
    const tail = this.tailLength(data);
    if (tail > 0 && hasAt(data, p, ARGS_KEY)) return this.args(data, p + ARGS_KEY.length, data.length - tail);
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
    this.textHead = "";
    return this.prefix;
  }

  /** The length of the chunk's tail, or 0 if it ends any other way. */
  private tailLength(data: string): number {
    if (hasAt(data, data.length - this.tail.length, this.tail)) return this.tail.length;
    for (const tail of TAILS) {
      if (hasAt(data, data.length - tail.length, tail)) {
        this.tail = tail;
        return tail.length;
      }
    }
    return 0;
  }
}
