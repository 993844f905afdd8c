/** Text or bytes as a Buffer (text is UTF-8). */
export function toBuffer(data: string | Uint8Array): Buffer {
  if (typeof data === "string") return Buffer.from(data, "utf8");
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** The part of `data` a read at `offset` for `count` bytes gets. */
export function slice(data: Buffer, offset: number, count: number): Buffer {
  return offset >= data.length ? data.subarray(0, 0) : data.subarray(offset, offset + count);
}

/** Bytes written at offsets, gathered into one buffer (later writes overwrite earlier ones). */
export class WrittenBytes {
  private buf = Buffer.alloc(0);
  private length = 0;

  put(offset: number, data: Uint8Array): void {
    const end = offset + data.length;
    if (end > this.buf.length) {
      const grown = Buffer.alloc(Math.max(end, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.length);
      this.buf = grown;
    }
    this.buf.set(data, offset);
    this.length = Math.max(this.length, end);
  }

  get size(): number {
    return this.length;
  }

  text(): string {
    return this.buf.toString("utf8", 0, this.length);
  }
}
