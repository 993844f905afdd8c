import { Errno, NinepError } from "@ollie/ninep";
import { consumingReads } from "../spec/consuming-reads.js";
import type { FileHandlers } from "../spec/context.js";
import type { AbortSource } from "./abort-source.js";
import { toBuffer } from "./bytes.js";
import { Waiters } from "./waiters.js";

export interface FifoOptions {
  /** Bytes buffered between writer and reader before writers wait (default 64 KiB). */
  capacity?: number;
}

/**
 * A pipe with back-pressure: `write` waits while the buffer is full, `read` waits while it is empty. After
 * `close`, readers drain what is left and then get end-of-file (or the error it was closed with), and
 * writers are refused.
 */
export class Fifo {
  private readonly capacity: number;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private readonly readable = new Waiters();
  private readonly writable = new Waiters();

  constructor(options: FifoOptions = {}) {
    this.capacity = Math.max(1, options.capacity ?? 64 * 1024);
  }

  get size(): number {
    return this.buffered;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Waits until all of `data` is buffered (taking it in as room appears). */
  async write(data: string | Uint8Array, until?: AbortSource): Promise<void> {
    let rest = Buffer.from(toBuffer(data));
    while (rest.length > 0) {
      if (this.ended)
        throw this.writable.failed ?? new NinepError("write to a closed fifo", { errno: Errno.EPIPE });
      const room = this.capacity - this.buffered;
      if (room <= 0) {
        await this.writable.wait(until);
        continue;
      }
      const piece = rest.subarray(0, room);
      this.chunks.push(piece);
      this.buffered += piece.length;
      rest = rest.subarray(piece.length);
      this.readable.wake();
    }
  }

  /** Waits for data, then returns up to `max` bytes; an empty result means closed and drained. */
  async read(max: number, until?: AbortSource): Promise<Buffer> {
    while (this.buffered === 0) {
      if (this.readable.failed) throw this.readable.failed;
      if (this.ended) return Buffer.alloc(0);
      await this.readable.wait(until);
    }
    const parts: Buffer[] = [];
    let want = max;
    while (want > 0 && this.chunks.length > 0) {
      const c = this.chunks[0]!;
      if (c.length <= want) {
        parts.push(this.chunks.shift()!);
        want -= c.length;
      } else {
        parts.push(c.subarray(0, want));
        this.chunks[0] = c.subarray(want);
        want = 0;
      }
    }
    const out = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    this.buffered -= out.length;
    this.writable.wake();
    return out;
  }

  /** Ends the pipe; with an `error`, readers waiting on an empty pipe and writers get it. */
  close(error?: Error): void {
    this.ended = true;
    for (const w of [this.readable, this.writable]) {
      if (error) w.fail(error);
      else w.wake();
    }
  }
}

/**
 * A file over a Fifo: reads take from it and writes put into it, both waiting as the fifo does. Declared
 * without a mode it is its owner's alone (0600), as a read takes what it returns.
 */
export function fifo(pipe: Fifo): FileHandlers<undefined> {
  return consumingReads({
    read: (ctx) => pipe.read(ctx.count, ctx),
    async write(ctx) {
      await pipe.write(ctx.data, ctx);
      return ctx.data.length;
    },
  });
}
