import { QID_SIZE } from "./constants.js";
import { ProtocolError } from "./errors.js";
import type { Qid, Stat } from "./types.js";

/** Bounds-checked little-endian reader over one frame; every read past the end is a ProtocolError. */
export class FrameCursor {
  offset: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
    readonly tag?: number,
  ) {
    this.offset = start;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  need(n: number, what: string): void {
    if (n > this.end - this.offset) {
      throw new ProtocolError(`${what} runs past the end of the message`, this.tag);
    }
  }

  u8(what = "field"): number {
    this.need(1, what);
    return this.buf[this.offset++]!;
  }

  u16(what = "field"): number {
    this.need(2, what);
    const v = this.buf.readUInt16LE(this.offset);
    this.offset += 2;
    return v;
  }

  u32(what = "field"): number {
    this.need(4, what);
    const v = this.buf.readUInt32LE(this.offset);
    this.offset += 4;
    return v;
  }

  u64(what = "field"): bigint {
    this.need(8, what);
    const v = this.buf.readBigUInt64LE(this.offset);
    this.offset += 8;
    return v;
  }

  string(what = "string"): string {
    const len = this.u16(what);
    this.need(len, what);
    const s = this.buf.toString("utf8", this.offset, this.offset + len);
    this.offset += len;
    return s;
  }

  /** A view of `n` bytes of the frame (no copy). */
  bytes(n: number, what = "data"): Buffer {
    this.need(n, what);
    const b = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return b;
  }

  qid(what = "qid"): Qid {
    this.need(QID_SIZE, what);
    const type = this.buf[this.offset]!;
    const version = this.buf.readUInt32LE(this.offset + 1);
    const path = this.buf.readBigUInt64LE(this.offset + 5);
    this.offset += QID_SIZE;
    return { type, version, path };
  }

  /** A stat entry, including its leading size[2], which must match the entry exactly. */
  stat(): Stat {
    const size = this.u16("stat size");
    this.need(size, "stat");
    const end = this.offset + size;
    const inner = new FrameCursor(this.buf, this.offset, end, this.tag);
    const stat: Stat = {
      type: inner.u16("stat type"),
      dev: inner.u32("stat dev"),
      qid: inner.qid("stat qid"),
      mode: inner.u32("stat mode"),
      atime: inner.u32("stat atime"),
      mtime: inner.u32("stat mtime"),
      length: inner.u64("stat length"),
      name: inner.string("stat name"),
      uid: inner.string("stat uid"),
      gid: inner.string("stat gid"),
      muid: inner.string("stat muid"),
    };
    if (inner.offset !== end) {
      throw new ProtocolError("stat size does not match its contents", this.tag);
    }
    this.offset = end;
    return stat;
  }
}
