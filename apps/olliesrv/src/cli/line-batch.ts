/** How much of what arrives one prompt carries: at most `maxLines` lines and `maxBytes` bytes of them. */
export interface BatchLimits {
  maxLines: number;
  maxBytes: number;
}

/** What a batch holds when it is taken. */
export interface Batch {
  /** The lines kept, in the order they came. */
  lines: string[];
  /** Where the lines left out were, as an index into `lines` (when `leftOut` > 0). */
  cut: number;
  /** How many lines were left out, and their bytes. */
  leftOut: number;
  leftOutBytes: number;
  /** How many lines came in all. */
  total: number;
}

/**
 * The lines that arrived since the last batch, bounded whatever comes: when more arrive than a batch carries,
 * the first ones and the last ones are kept and those between are counted, not held — the start of a burst
 * says what began it (a compiler's first error), its end where things stand now.
 */
export class LineBatch {
  private head: string[] = [];
  private headBytes = 0;
  /** Once a line did not fit the head, every later one goes to the tail, so the order is kept. */
  private headFull = false;
  private tail: string[] = [];
  private tailBytes = 0;
  private leftOut = 0;
  private leftOutBytes = 0;
  private total = 0;
  private totalBytes = 0;

  constructor(private readonly limits: BatchLimits) {}

  get size(): number {
    return this.total;
  }

  /** Whether a batch's worth has come: it may go without waiting for the rest of its window. */
  get full(): boolean {
    return this.total >= this.limits.maxLines || this.totalBytes >= this.limits.maxBytes;
  }

  add(text: string): void {
    const line = cutLine(text, Math.floor(this.limits.maxBytes / 2));
    const bytes = Buffer.byteLength(line) + 1;
    this.total++;
    this.totalBytes += bytes;
    const headLines = Math.ceil(this.limits.maxLines / 2);
    if (
      !this.headFull &&
      this.head.length < headLines &&
      this.headBytes + bytes <= this.limits.maxBytes / 2
    ) {
      this.head.push(line);
      this.headBytes += bytes;
      return;
    }
    this.headFull = true;
    this.tail.push(line);
    this.tailBytes += bytes;
    const tailLines = this.limits.maxLines - headLines;
    while (this.tail.length > tailLines || this.tailBytes > this.limits.maxBytes / 2) {
      const dropped = this.tail.shift()!;
      this.tailBytes -= Buffer.byteLength(dropped) + 1;
      this.leftOut++;
      this.leftOutBytes += Buffer.byteLength(dropped) + 1;
    }
  }

  /** Hands over what was gathered and starts afresh. */
  take(): Batch {
    const batch: Batch = {
      lines: [...this.head, ...this.tail],
      cut: this.head.length,
      leftOut: this.leftOut,
      leftOutBytes: this.leftOutBytes,
      total: this.total,
    };
    this.head = [];
    this.tail = [];
    this.headBytes = this.tailBytes = this.leftOut = this.leftOutBytes = this.total = this.totalBytes = 0;
    this.headFull = false;
    return batch;
  }
}

/** A line longer than `max` bytes, cut to them, saying how much went. */
export function cutLine(line: string, max: number): string {
  const bytes = Buffer.from(line);
  if (bytes.length <= max) return line;
  // A cut inside a character leaves a replacement character: dropped, it is not text.
  const kept = bytes
    .subarray(0, Math.max(0, max - 32))
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  return `${kept}… [${bytes.length - Buffer.byteLength(kept)} bytes cut]`;
}

/** The batch as the lines of a prompt, the left-out run marked where it was. */
export function batchLines(batch: Batch): string[] {
  if (batch.leftOut === 0) return batch.lines;
  const mark = `[… ${batch.leftOut} line${batch.leftOut === 1 ? "" : "s"} (${batch.leftOutBytes} bytes) left out …]`;
  return [...batch.lines.slice(0, batch.cut), mark, ...batch.lines.slice(batch.cut)];
}
