import { StringDecoder } from "node:string_decoder";

/**
 * Cuts a byte stream into lines for `onLine`: `\n` ends one (a `\r` before it is dropped), a character split
 * between chunks comes out whole, and a line that grows past `maxChars` characters without ending is handed over as it
 * is, so a stream without newlines cannot fill the memory.
 */
export class LineSplitter {
  private readonly utf8 = new StringDecoder("utf8");
  private partial = "";

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxChars: number,
  ) {}

  write(chunk: Buffer | string): void {
    const lines = (this.partial + (typeof chunk === "string" ? chunk : this.utf8.write(chunk))).split("\n");
    this.partial = lines.pop()!;
    for (const line of lines) this.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
    if (this.partial.length > this.maxChars) {
      this.onLine(this.partial);
      this.partial = "";
    }
  }

  /** The stream ended: a last line without its newline is a line too. */
  end(): void {
    const rest = this.partial + this.utf8.end();
    this.partial = "";
    if (rest) this.onLine(rest);
  }
}

/** Every line of `stream` to `onLine`; resolves when the stream has ended (or was destroyed). */
export function splitLines(
  stream: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  maxChars: number,
): Promise<void> {
  const splitter = new LineSplitter(onLine, maxChars);
  return new Promise((resolve, reject) => {
    stream.on("data", (chunk: Buffer | string) => splitter.write(chunk));
    stream.on("end", () => {
      splitter.end();
      resolve();
    });
    stream.on("close", () => resolve());
    stream.on("error", reject);
  });
}

/** A log line longer than this is passed on in parts: a process printing without newlines holds no memory. */
const LOG_LINE_CHARS = 64 * 1024;

/** Calls `onLine` with each line `stream` gives (a process's log, read for as long as it runs). */
export function eachLine(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  if (stream) splitLines(stream, onLine, LOG_LINE_CHARS).catch(() => {});
}
