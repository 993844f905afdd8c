import { describe, expect, it } from "vitest";
import { AppendBuffer } from "./append-buffer.js";

describe("AppendBuffer", () => {
  it("keeps short appends in right-sized buffers of its own, not in Node's shared pool slabs", () => {
    const stream = new AppendBuffer();
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}\n`);
    for (const line of lines) stream.append(line);
    const all = stream.read(0, stream.end);
    expect(all.toString()).toBe(lines.join(""));
    // One buffer of the log's own holds them all, at most half of it spare (a pool slice's is 8 KiB).
    expect(all.buffer.byteLength).toBeLessThanOrEqual(2 * stream.end);
  });

  it("fits a buffer of short appends to its size when it is mostly spare and a long append comes", () => {
    const stream = new AppendBuffer();
    stream.append("x".repeat(100));
    stream.append("y".repeat(100));
    stream.append("z".repeat(10));
    expect(stream.read(0, 210).buffer.byteLength).toBe(400);
    stream.append("w".repeat(5000));
    const short = stream.read(0, 210);
    expect(short.toString()).toBe(`${"x".repeat(100)}${"y".repeat(100)}${"z".repeat(10)}`);
    expect(short.buffer.byteLength).toBe(210);
    expect(stream.read(205, 10).toString()).toBe("zzzzzwwwww");
  });

  it("copies what it is given, so the caller may reuse its buffer", () => {
    const stream = new AppendBuffer();
    const mine = Buffer.from("abc");
    stream.append(mine);
    mine.write("xyz");
    expect(stream.read(0, 3).toString()).toBe("abc");
  });

  it("reads across chunks, and keeps the last `retain` bytes of a log that outgrew it", () => {
    const stream = new AppendBuffer({ retain: 6000 });
    stream.append("a".repeat(3000));
    stream.append("b".repeat(3000));
    stream.append("c".repeat(10));
    expect(stream.read(2995, 10).toString()).toBe("aaaaabbbbb");
    expect(stream.start).toBe(10);
    expect(stream.read(0, 5).toString()).toBe("aaaaa");
    expect(stream.read(6000, 100).toString()).toBe("c".repeat(10));
    expect(stream.version).toBe(3);
  });
});
