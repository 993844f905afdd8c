import { StringDecoder } from "node:string_decoder";

/**
 * Cuts a byte stream into its lines. A read may end inside a line, or inside a character: what is left over
 * waits for the next chunk.
 */
export class LineDecoder {
  private readonly utf8 = new StringDecoder("utf8");
  private partial = "";

  /** The lines `chunk` completes, without their newlines (empty lines left out). */
  push(chunk: Uint8Array): string[] {
    const lines = (this.partial + this.utf8.write(Buffer.from(chunk))).split("\n");
    this.partial = lines.pop()!;
    return lines.filter((line) => line !== "");
  }
}
