import { escapeRegExp, LITERAL, literalValue } from "../../stream/json-scan.js";

/** What `match` found: nothing it recognizes, a text fragment, or a fragment of call `index`'s arguments. */
export const NO_MATCH = 0;
export const TEXT = 1;
export const ARGS = 2;

const CHOICE = '"choices":[{"index":0,"delta":{';
/** How a chunk that finishes nothing and reports no usage ends, with and without the optional keys. */
const TAIL = `(?:,"logprobs":null)?,"finish_reason":null\\}\\](?:,"usage":null)?\\}`;

/**
 * Recognizes, without JSON.parse, the chunks that make up almost all of a long chat-completions stream: a
 * text or tool-argument fragment and nothing else. Within one stream every chunk starts the same way (id,
 * object, created, model, fingerprint), so that beginning is learned from the first chunk and the rest of
 * the chunk is matched, whole, by one regular expression. Anything not recognized exactly — another key
 * order, a finish reason, usage, an error, extra keys — returns NO_MATCH and is parsed in full.
 */
export class OpenAiFastPath {
  private prefix = "";
  private textShape: RegExp | undefined;
  private argsShape: RegExp | undefined;
  /** The fragment of the last match. */
  fragment = "";
  /** The call index of the last ARGS match. */
  index = 0;

  /** NO_MATCH, TEXT or ARGS; the fragment (and index) are left in the fields, to spare an allocation. */
  match(data: string): number {
    if (this.textShape === undefined || this.argsShape === undefined) {
      if (!this.learn(data)) return NO_MATCH;
      return this.match(data);
    }
    const text = this.textShape.exec(data);
    if (text) {
      this.fragment = literalValue(text[1]!);
      return TEXT;
    }
    const args = this.argsShape.exec(data);
    if (args) {
      this.index = Number(args[1]);
      this.fragment = literalValue(args[2]!);
      return ARGS;
    }
    return this.learn(data) ? this.match(data) : NO_MATCH;
  }

  /** Learns the beginning of `data` if it is a new one; false if there is nothing new to learn. */
  private learn(data: string): boolean {
    // The known beginning ends at its first CHOICE, so data that starts with it would learn it again.
    if (this.prefix !== "" && data.startsWith(this.prefix)) return false;
    const at = data.indexOf(CHOICE);
    if (at < 0 || data.lastIndexOf('"usage"', at) >= 0 || data.lastIndexOf('"error"', at) >= 0) return false;
    const prefix = data.slice(0, at + CHOICE.length);
    if (prefix === this.prefix) return false;
    this.prefix = prefix;
    const head = `^${escapeRegExp(prefix)}`;
    this.textShape = new RegExp(`${head}"content":${LITERAL}\\}${TAIL}$`);
    this.argsShape = new RegExp(
      `${head}"tool_calls":\\[\\{"index":(\\d{1,6}),"function":\\{"arguments":${LITERAL}\\}\\}\\]\\}${TAIL}$`,
    );
    return true;
  }
}
