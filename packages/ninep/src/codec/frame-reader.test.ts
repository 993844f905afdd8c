import { describe, expect, it } from "vitest";
import { encodeMessage } from "./encode.js";
import { FrameReader } from "./frame-reader.js";

const frames = [
  encodeMessage({ type: "Tversion", tag: 0xffff, msize: 8192, version: "9P2000" }),
  encodeMessage({ type: "Twrite", tag: 1, fid: 2, offset: 0n, data: Buffer.alloc(1000, 7) }),
  encodeMessage({ type: "Tclunk", tag: 3, fid: 2 }),
];
const stream = Buffer.concat(frames);

function drain(r: FrameReader): Buffer[] {
  const out: Buffer[] = [];
  for (let f = r.next(); f; f = r.next()) out.push(Buffer.from(f));
  return out;
}

describe("FrameReader", () => {
  it("reassembles frames fed one byte at a time", () => {
    const r = new FrameReader(8192);
    const out: Buffer[] = [];
    for (const byte of stream) {
      r.push(Buffer.from([byte]));
      out.push(...drain(r));
    }
    expect(out).toEqual(frames);
    expect(r.pending).toBe(0);
  });

  it("splits several frames arriving in one chunk", () => {
    const r = new FrameReader(8192);
    r.push(stream);
    expect(drain(r)).toEqual(frames);
  });

  it("splits at every possible boundary", () => {
    for (let cut = 1; cut < stream.length; cut += 13) {
      const r = new FrameReader(8192);
      r.push(stream.subarray(0, cut));
      const out = drain(r);
      r.push(stream.subarray(cut));
      out.push(...drain(r));
      expect(out).toEqual(frames);
    }
  });

  it("refuses a size below a header", () => {
    const r = new FrameReader(8192);
    r.push(Buffer.from([6, 0, 0, 0]));
    expect(() => r.next()).toThrow(/smaller than a header/);
  });

  it("refuses a size above msize as soon as the size field arrives, before buffering the body", () => {
    const r = new FrameReader(8192);
    r.push(Buffer.from([0x01, 0x20, 0, 0]));
    expect(() => r.next()).toThrow(/exceeds msize 8192/);
  });
});
