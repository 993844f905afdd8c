import { StringDecoder } from "node:string_decoder";

/**
 * Decodes a byte stream as UTF-8 text, chunk by chunk, keeping a character split between chunks whole and
 * dropping a byte-order mark at the start, as `TextDecoder` does. Node's StringDecoder is used because on
 * Node 20 `TextDecoder.decode(chunk, { stream: true })` takes a slow path: about five times the cost, which
 * on a long stream of small events is a large part of all the work done per byte.
 */
export class Utf8Text {
  private readonly decoder = new StringDecoder("utf8");
  private first = true;

  /** The text of `chunk`, less any bytes of a character that the next chunk completes. */
  write(chunk: Uint8Array): string {
    const text = this.decoder.write(chunk as Buffer);
    if (!this.first || text === "") return text;
    this.first = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  /** What is left at the end: a character cut short becomes U+FFFD. */
  end(): string {
    const text = this.decoder.end();
    return this.first && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}
