import type { AbortSource } from "./abort-source.js";
import { toBuffer } from "./bytes.js";
import { Waiters } from "./waiters.js";

/** Short appends share a buffer up to this size (bytes). */
const SMALL_CHUNK = 4096;

export interface AppendBufferOptions {
  /** Bytes kept for readers that are behind (default 1 MiB); older bytes are dropped. */
  retain?: number;
}

/**
 * An append-only byte stream with a bounded memory: positions count every byte ever appended, and the last
 * `retain` bytes can be read. Readers at the end wait for the next append.
 */
export class AppendBuffer {
  private readonly retain: number;
  private chunks: Buffer[] = [];
  /** Absolute position of chunks[0]. */
  private first = 0;
  private total = 0;
  private appends = 0;
  private ended = false;
  private readonly waiters = new Waiters();
  /** The buffer the last chunk is the start of, while short appends may still be copied into it. */
  private tail: Buffer | undefined;
  private tailUsed = 0;

  constructor(options: AppendBufferOptions = {}) {
    this.retain = options.retain ?? 1024 * 1024;
  }

  /** Position just past the last byte appended. */
  get end(): number {
    return this.total;
  }

  /** Position of the oldest byte still retained. */
  get start(): number {
    return this.first;
  }

  /** How many appends there have been (the files' qid version). */
  get version(): number {
    return this.appends;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Readers now waiting for an append. */
  get waiting(): number {
    return this.waiters.size;
  }

  append(data: string | Uint8Array): void {
    if (this.ended) throw new Error("append to a closed log");
    const bytes = toBuffer(data);
    if (bytes.length === 0) return;
    this.keep(bytes);
    this.total += bytes.length;
    this.appends++;
    this.trim();
    this.waiters.wake();
  }

  /**
   * Ends the stream: readers at the end get end-of-file instead of waiting — or, given an `error` (e.g.
   * "session killed"), that error. What was appended can still be read.
   */
  close(error?: Error): void {
    this.ended = true;
    if (error) this.waiters.fail(error);
    else this.waiters.wake();
  }

  /** Up to `count` retained bytes from absolute `position` (clamped to what is retained). */
  read(position: number, count: number): Buffer {
    let pos = Math.max(position, this.first);
    // Readers mostly follow the end: find the chunk holding `pos` from the newest back, not the oldest on.
    let i = this.chunks.length;
    let at = this.total;
    while (i > 0 && at > pos) at -= this.chunks[--i]!.length;
    const parts: Buffer[] = [];
    let want = count;
    for (; i < this.chunks.length && want > 0; i++) {
      const c = this.chunks[i]!;
      const chunkEnd = at + c.length;
      if (chunkEnd > pos) {
        const piece = c.subarray(pos - at, Math.min(c.length, pos - at + want));
        parts.push(piece);
        want -= piece.length;
        pos += piece.length;
      }
      at = chunkEnd;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }

  /**
   * Waits until something is appended past `position` or the stream closes; rejects, at the end of a
   * stream closed with an error, with that error.
   */
  async waitPast(position: number, until?: AbortSource): Promise<void> {
    while (this.total <= position && !this.ended) await this.waiters.wait(until);
    if (this.total <= position && this.waiters.failed) throw this.waiters.failed;
  }

  /**
   * Keeps a copy of `bytes` in memory of the log's own. Node makes small buffers as slices of shared 8 KiB
   * pool slabs, and a log that kept such a slice would keep its whole slab alive. Short appends are copied
   * into a tail buffer that starts at their size and doubles (up to SMALL_CHUNK) as they come, so a log of
   * short lines is a few buffers with at most half of the last one spare, and appending stays linear.
   */
  private keep(bytes: Buffer): void {
    const n = bytes.length;
    const tail = this.tail;
    if (tail && this.tailUsed + n <= SMALL_CHUNK) {
      let into = tail;
      if (this.tailUsed + n > tail.length) {
        into = Buffer.allocUnsafeSlow(Math.min(SMALL_CHUNK, Math.max(2 * tail.length, this.tailUsed + n)));
        tail.copy(into, 0, 0, this.tailUsed);
        this.tail = into;
      }
      bytes.copy(into, this.tailUsed);
      this.tailUsed += n;
      this.chunks[this.chunks.length - 1] = into.subarray(0, this.tailUsed);
      return;
    }
    this.settleTail();
    const own = Buffer.allocUnsafeSlow(n);
    bytes.copy(own, 0);
    this.chunks.push(own);
    if (n < SMALL_CHUNK) {
      this.tail = own;
      this.tailUsed = n;
    }
  }

  /** Ends the tail buffer's growth; one left mostly spare is copied to its size. */
  private settleTail(): void {
    const tail = this.tail;
    if (!tail) return;
    this.tail = undefined;
    if (this.tailUsed * 4 < tail.length * 3) {
      const fitted = Buffer.allocUnsafeSlow(this.tailUsed);
      tail.copy(fitted, 0, 0, this.tailUsed);
      this.chunks[this.chunks.length - 1] = fitted;
    }
  }

  private trim(): void {
    while (this.chunks.length > 1 && this.total - (this.first + this.chunks[0]!.length) >= this.retain) {
      this.first += this.chunks.shift()!.length;
    }
    const excess = this.total - this.first - this.retain;
    if (excess > 0) {
      // A tail cut at its start takes no more appends.
      if (this.chunks.length === 1) this.tail = undefined;
      this.chunks[0] = this.chunks[0]!.subarray(excess);
      this.first += excess;
    }
  }
}
