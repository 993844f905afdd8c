import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseMessage } from "../testing/parse-message.js";
import { MessageTypeNumber } from "./constants.js";
import { decodeMessage } from "./decode.js";
import { encodeMessage, messageSize } from "./encode.js";
import { formatMessage } from "./format.js";
import type { Message, Qid, Stat } from "./types.js";

const u8 = fc.integer({ min: 0, max: 0xff });
const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u64 = fc.bigInt({ min: 0n, max: 0xffffffffffffffffn });
const str = fc.string({ unit: "grapheme", maxLength: 20 });
const bytes = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b));
const qid: fc.Arbitrary<Qid> = fc.record({ type: u8, version: u32, path: u64 });
const stat: fc.Arbitrary<Stat> = fc.record({
  type: u16,
  dev: u32,
  qid,
  mode: u32,
  atime: u32,
  mtime: u32,
  length: u64,
  name: str,
  uid: str,
  gid: str,
  muid: str,
});
const tag = u16;

const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ type: fc.constant("Tversion" as const), tag, msize: u32, version: str }),
  fc.record({ type: fc.constant("Rversion" as const), tag, msize: u32, version: str }),
  fc.record({ type: fc.constant("Tauth" as const), tag, afid: u32, uname: str, aname: str }),
  fc.record({ type: fc.constant("Rauth" as const), tag, aqid: qid }),
  fc.record({ type: fc.constant("Tattach" as const), tag, fid: u32, afid: u32, uname: str, aname: str }),
  fc.record({ type: fc.constant("Rattach" as const), tag, qid }),
  fc.record({ type: fc.constant("Rerror" as const), tag, ename: str }),
  fc.record({ type: fc.constant("Tflush" as const), tag, oldtag: u16 }),
  fc.record({ type: fc.constant("Rflush" as const), tag }),
  fc.record({
    type: fc.constant("Twalk" as const),
    tag,
    fid: u32,
    newfid: u32,
    wnames: fc.array(str, { maxLength: 16 }),
  }),
  fc.record({ type: fc.constant("Rwalk" as const), tag, wqids: fc.array(qid, { maxLength: 16 }) }),
  fc.record({ type: fc.constant("Topen" as const), tag, fid: u32, mode: u8 }),
  fc.record({ type: fc.constant("Ropen" as const), tag, qid, iounit: u32 }),
  fc.record({ type: fc.constant("Tcreate" as const), tag, fid: u32, name: str, perm: u32, mode: u8 }),
  fc.record({ type: fc.constant("Rcreate" as const), tag, qid, iounit: u32 }),
  fc.record({ type: fc.constant("Tread" as const), tag, fid: u32, offset: u64, count: u32 }),
  fc.record({ type: fc.constant("Rread" as const), tag, data: bytes }),
  fc.record({ type: fc.constant("Twrite" as const), tag, fid: u32, offset: u64, data: bytes }),
  fc.record({ type: fc.constant("Rwrite" as const), tag, count: u32 }),
  fc.record({ type: fc.constant("Tclunk" as const), tag, fid: u32 }),
  fc.record({ type: fc.constant("Rclunk" as const), tag }),
  fc.record({ type: fc.constant("Tremove" as const), tag, fid: u32 }),
  fc.record({ type: fc.constant("Rremove" as const), tag }),
  fc.record({ type: fc.constant("Tstat" as const), tag, fid: u32 }),
  fc.record({ type: fc.constant("Rstat" as const), tag, stat }),
  fc.record({ type: fc.constant("Twstat" as const), tag, fid: u32, stat }),
  fc.record({ type: fc.constant("Rwstat" as const), tag }),
);

describe("round trips", () => {
  it("covers every message type of 9P2000", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(message, (m) => void seen.add(m.type)),
      { numRuns: 3000 },
    );
    expect([...seen].sort()).toEqual(Object.keys(MessageTypeNumber).sort());
  });

  it("decode(encode(m)) equals m for every message type", () => {
    fc.assert(
      fc.property(message, (m) => {
        const frame = encodeMessage(m);
        expect(frame.length).toBe(messageSize(m));
        expect(decodeMessage(frame)).toEqual(m);
      }),
      { numRuns: 5000 },
    );
  });

  it("parseMessage(formatMessage(m)) equals m, so transcripts say exactly what goes on the wire", () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(encodeMessage(parseMessage(formatMessage(m)))).toEqual(encodeMessage(m));
      }),
      { numRuns: 5000 },
    );
  });

  it("any truncation of a valid frame is rejected with an error, never a crash", () => {
    fc.assert(
      fc.property(message, fc.nat(), (m, cut) => {
        const frame = encodeMessage(m);
        const at = cut % frame.length;
        const short = Buffer.from(frame.subarray(0, at));
        if (short.length >= 4) short.writeUInt32LE(short.length, 0);
        expect(() => decodeMessage(short)).toThrow();
      }),
      { numRuns: 3000 },
    );
  });
});
