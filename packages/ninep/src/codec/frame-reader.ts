import { HEADER_SIZE } from "./constants.js";
import { ProtocolError } from "./errors.js";

/**
 * Cuts a byte stream into 9P frames. Chunks may split frames anywhere or hold several; a frame's size field
 * is checked (at least a header, at most `maxSize`) before any of its bytes are buffered beyond one chunk, so
 * a hostile size cannot make the reader allocate.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /**
   * @param maxSize the largest frame taken
   * @param limitName what the error of a larger one calls `maxSize` ("message size N exceeds msize 8192")
   */
  constructor(
    public maxSize: number,
    public limitName = "msize",
  ) {}

  /** Bytes held that are not yet part of a returned frame. */
  get pending(): number {
    return this.buffered;
  }

  /** Drops every byte held: a stream that cannot be followed any more is not buffered. */
  clear(): void {
    this.chunks = [];
    this.buffered = 0;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** The next whole frame, or null when more bytes are needed. Throws ProtocolError for a bad size. */
  next(): Buffer | null {
    if (this.buffered < 4) return null;
    const size = this.peekSize();
    if (size < HEADER_SIZE) {
      throw new ProtocolError(`message size ${size} is smaller than a header`);
    }
    if (size > this.maxSize) {
      throw new ProtocolError(`message size ${size} exceeds ${this.limitName} ${this.maxSize}`);
    }
    if (this.buffered < size) return null;
    return this.take(size);
  }

  private peekSize(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readUInt32LE(0);
    const head = Buffer.allocUnsafe(4);
    let filled = 0;
    for (const c of this.chunks) {
      const n = Math.min(4 - filled, c.length);
      c.copy(head, filled, 0, n);
      filled += n;
      if (filled === 4) break;
    }
    return head.readUInt32LE(0);
  }

  private take(size: number): Buffer {
    this.buffered -= size;
    const first = this.chunks[0]!;
    if (first.length >= size) {
      const frame = first.subarray(0, size);
      if (first.length === size) this.chunks.shift();
      else this.chunks[0] = first.subarray(size);
      return frame;
    }
    const frame = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const c = this.chunks[0]!;
      const n = Math.min(size - filled, c.length);
      c.copy(frame, filled, 0, n);
      filled += n;
      if (n === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(n);
    }
    return frame;
  }
}
