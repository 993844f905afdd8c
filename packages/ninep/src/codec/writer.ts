import { QID_SIZE } from "./constants.js";
import type { Qid, Stat } from "./types.js";

/** Little-endian writer into a buffer allocated at its exact final size. */
export class FrameWriter {
  offset = 0;
  constructor(readonly buf: Buffer) {}

  u8(v: number): void {
    this.buf[this.offset++] = v;
  }
  u16(v: number): void {
    this.buf.writeUInt16LE(v, this.offset);
    this.offset += 2;
  }
  u32(v: number): void {
    this.buf.writeUInt32LE(v >>> 0, this.offset);
    this.offset += 4;
  }
  u64(v: bigint): void {
    this.buf.writeBigUInt64LE(v, this.offset);
    this.offset += 8;
  }
  string(s: string): void {
    const len = this.buf.write(s, this.offset + 2, "utf8");
    this.buf.writeUInt16LE(len, this.offset);
    this.offset += 2 + len;
  }
  bytes(b: Uint8Array): void {
    this.buf.set(b, this.offset);
    this.offset += b.length;
  }
  qid(q: Qid): void {
    this.buf[this.offset] = q.type;
    this.buf.writeUInt32LE(q.version >>> 0, this.offset + 1);
    this.buf.writeBigUInt64LE(q.path, this.offset + 5);
    this.offset += QID_SIZE;
  }
  /** Writes what `body` writes behind a size[2] of it, filled in afterwards (no second pass to measure). */
  sized(body: () => void): void {
    const at = this.offset;
    this.offset += 2;
    body();
    this.buf.writeUInt16LE(this.offset - at - 2, at);
  }
  stat(s: Stat): void {
    this.sized(() => this.statFields(s));
  }
  private statFields(s: Stat): void {
    this.u16(s.type);
    this.u32(s.dev);
    this.qid(s.qid);
    this.u32(s.mode);
    this.u32(s.atime);
    this.u32(s.mtime);
    this.u64(s.length);
    this.string(s.name);
    this.string(s.uid);
    this.string(s.gid);
    this.string(s.muid);
  }
}

/** Encoded length of a string field: its size[2] plus its UTF-8 bytes. */
export function stringSize(s: string): number {
  return 2 + Buffer.byteLength(s, "utf8");
}

/** Encoded length of a stat entry including its own size[2]. */
export function statSize(s: Stat): number {
  return 41 + stringSize(s.name) + stringSize(s.uid) + stringSize(s.gid) + stringSize(s.muid);
}
