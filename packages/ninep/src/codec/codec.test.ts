import { describe, expect, it } from "vitest";
import { NOFID, NOTAG } from "./constants.js";
import { decodeMessage } from "./decode.js";
import { encodeMessage } from "./encode.js";
import { ProtocolError } from "./errors.js";
import { dontTouchStat } from "./stat.js";
import type { Message, Stat } from "./types.js";

const hex = (s: string) => Buffer.from(s.replace(/[^0-9a-f]/gi, ""), "hex");

const helloStat: Stat = {
  type: 0,
  dev: 0,
  qid: { type: 0, version: 0, path: 1n },
  mode: 0o644,
  atime: 1,
  mtime: 2,
  length: 14n,
  name: "hello",
  uid: "u",
  gid: "g",
  muid: "u",
};
const helloStatBytes =
  "37 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 a4 01 00 00 01 00 00 00 02 00 00 00" +
  "0e 00 00 00 00 00 00 00 05 00 68 65 6c 6c 6f 01 00 75 01 00 67 01 00 75";

// Reference vectors produced by an independent 9P2000 marshaller.
const vectors: Array<[Message, string]> = [
  [
    { type: "Tversion", tag: NOTAG, msize: 8192, version: "9P2000" },
    "13 00 00 00 64 ff ff 00 20 00 00 06 00 39 50 32 30 30 30",
  ],
  [
    { type: "Rversion", tag: NOTAG, msize: 8192, version: "unknown" },
    "14 00 00 00 65 ff ff 00 20 00 00 07 00 75 6e 6b 6e 6f 77 6e",
  ],
  [
    { type: "Tattach", tag: 1, fid: 0, afid: NOFID, uname: "u", aname: "" },
    "14 00 00 00 68 01 00 00 00 00 00 ff ff ff ff 01 00 75 00 00",
  ],
  [
    { type: "Rattach", tag: 1, qid: { type: 0x80, version: 0, path: 0n } },
    "14 00 00 00 69 01 00 80 00 00 00 00 00 00 00 00 00 00 00 00",
  ],
  [
    { type: "Rerror", tag: 1, ename: "unknown fid" },
    "14 00 00 00 6b 01 00 0b 00 75 6e 6b 6e 6f 77 6e 20 66 69 64",
  ],
  [{ type: "Tflush", tag: 2, oldtag: 1 }, "09 00 00 00 6c 02 00 01 00"],
  [{ type: "Rflush", tag: 2 }, "07 00 00 00 6d 02 00"],
  [
    { type: "Twalk", tag: 1, fid: 0, newfid: 1, wnames: ["a", "b"] },
    "17 00 00 00 6e 01 00 00 00 00 00 01 00 00 00 02 00 01 00 61 01 00 62",
  ],
  [
    { type: "Rwalk", tag: 1, wqids: [{ type: 0, version: 0, path: 5n }] },
    "16 00 00 00 6f 01 00 01 00 00 00 00 00 00 05 00 00 00 00 00 00 00",
  ],
  [{ type: "Topen", tag: 1, fid: 1, mode: 0 }, "0c 00 00 00 70 01 00 01 00 00 00 00"],
  [
    { type: "Ropen", tag: 1, qid: { type: 0, version: 3, path: 5n }, iounit: 0 },
    "18 00 00 00 71 01 00 00 03 00 00 00 05 00 00 00 00 00 00 00 00 00 00 00",
  ],
  [
    { type: "Tcreate", tag: 1, fid: 1, name: "x", perm: 0o644, mode: 2 },
    "13 00 00 00 72 01 00 01 00 00 00 01 00 78 a4 01 00 00 02",
  ],
  [
    { type: "Tread", tag: 1, fid: 1, offset: 0n, count: 100 },
    "17 00 00 00 74 01 00 01 00 00 00 00 00 00 00 00 00 00 00 64 00 00 00",
  ],
  [{ type: "Rread", tag: 1, data: Buffer.from("hi") }, "0d 00 00 00 75 01 00 02 00 00 00 68 69"],
  [
    { type: "Twrite", tag: 1, fid: 1, offset: 2n, data: Buffer.from("hi") },
    "19 00 00 00 76 01 00 01 00 00 00 02 00 00 00 00 00 00 00 02 00 00 00 68 69",
  ],
  [{ type: "Rwrite", tag: 1, count: 2 }, "0b 00 00 00 77 01 00 02 00 00 00"],
  [{ type: "Tclunk", tag: 1, fid: 1 }, "0b 00 00 00 78 01 00 01 00 00 00"],
  [{ type: "Rclunk", tag: 1 }, "07 00 00 00 79 01 00"],
  [{ type: "Rstat", tag: 1, stat: helloStat }, `42 00 00 00 7d 01 00 39 00 ${helloStatBytes}`],
];

describe("codec", () => {
  it.each(vectors)("encodes and decodes %s to the reference bytes", (msg, bytes) => {
    expect(encodeMessage(msg).toString("hex")).toBe(hex(bytes).toString("hex"));
    expect(decodeMessage(hex(bytes))).toEqual(msg);
  });

  it("encodes the all don't-touch stat as 49 bytes of ones and empty strings", () => {
    const frame = encodeMessage({ type: "Twstat", tag: 1, fid: 3, stat: dontTouchStat() });
    const stat = frame.subarray(13);
    expect(stat.toString("hex")).toBe(`2f00${"ff".repeat(39)}${"00".repeat(8)}`);
    expect(stat.length).toBe(49);
  });

  const reject = (bytes: Buffer, pattern: RegExp, tag?: number) => {
    let caught: unknown;
    try {
      decodeMessage(bytes);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProtocolError);
    expect((caught as ProtocolError).message).toMatch(pattern);
    expect((caught as ProtocolError).tag).toBe(tag);
  };

  it("rejects a frame shorter than its header", () =>
    reject(hex("06 00 00 00 64 ff"), /shorter than a header/));

  it("rejects a size field that disagrees with the frame", () =>
    reject(hex("08 00 00 00 6d 02 00"), /size field/));

  it("rejects an unknown message type, keeping the tag", () =>
    reject(hex("07 00 00 00 63 05 00"), /unknown message type 99/, 5));

  it("rejects a string running past the end", () =>
    reject(hex("0e 00 00 00 64 01 00 00 20 00 00 ff 00 39"), /version runs past the end/, 1));

  it("rejects a data count running past the end without allocating it", () =>
    reject(hex("0b 00 00 00 75 07 00 ff ff ff 7f"), /data runs past the end/, 7));

  it("rejects trailing bytes", () => reject(hex("08 00 00 00 6d 02 00 00"), /1 bytes left over/, 2));

  it("rejects a walk of more than 16 names", () => {
    const frame = encodeMessage({ type: "Twalk", tag: 9, fid: 0, newfid: 1, wnames: Array(17).fill("a") });
    reject(frame, /17 names exceeds the limit of 16/, 9);
  });

  it("rejects a stat whose inner size disagrees with its fields", () => {
    const frame = encodeMessage({ type: "Rstat", tag: 1, stat: helloStat });
    frame.writeUInt16LE(0x36, 9);
    reject(frame, /stat|runs past/, 1);
  });
});
