import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseMessage } from "../../testing/parse-message.js";
import { decodeMessage } from "../decode.js";
import { encodeMessage, messageSize } from "../encode.js";
import { formatMessage } from "../format.js";
import type { Message } from "../types.js";
import { type FieldKind, LINUX_MESSAGES, type LinuxMessageName } from "./messages.js";

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u64 = fc.bigInt({ min: 0n, max: 0xffffffffffffffffn });
const str = fc.string({ unit: "grapheme", maxLength: 20 });
const qid = fc.record({ type: fc.integer({ min: 0, max: 0xff }), version: u32, path: u64 });
const dirent = fc.record({ qid, offset: u64, type: fc.integer({ min: 0, max: 0xff }), name: str });

const byKind: Record<FieldKind, fc.Arbitrary<unknown>> = {
  u8: fc.integer({ min: 0, max: 0xff }),
  u16: fc.integer({ min: 0, max: 0xffff }),
  u32,
  u64,
  string: str,
  qid,
  dirents: fc.array(dirent, { maxLength: 8 }),
};

const names = Object.keys(LINUX_MESSAGES) as LinuxMessageName[];

/** Any 9P2000.L message, its fields drawn by the table's kinds; Tauth and Tattach with their n_uname. */
const message: fc.Arbitrary<Message> = fc.oneof(
  ...names.map(
    (type) =>
      fc.record({
        type: fc.constant(type),
        tag: fc.integer({ min: 0, max: 0xffff }),
        ...Object.fromEntries(LINUX_MESSAGES[type].fields.map(([name, kind]) => [name, byKind[kind]])),
      }) as fc.Arbitrary<Message>,
  ),
  fc.record({
    type: fc.constant("Tauth" as const),
    tag: u32.map((n) => n & 0xffff),
    afid: u32,
    uname: str,
    aname: str,
    nUname: u32,
  }),
  fc.record({
    type: fc.constant("Tattach" as const),
    tag: u32.map((n) => n & 0xffff),
    fid: u32,
    afid: u32,
    uname: str,
    aname: str,
    nUname: u32,
  }),
);

describe("9P2000.L round trips", () => {
  it("decode(encode(m)) equals m, and its size is what messageSize says", () => {
    fc.assert(
      fc.property(message, (m) => {
        const frame = encodeMessage(m);
        expect(frame.length).toBe(messageSize(m));
        expect(decodeMessage(frame, "9P2000.L")).toEqual(m);
      }),
      { numRuns: 5000 },
    );
  });

  it("parseMessage(formatMessage(m)) encodes the same bytes", () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(encodeMessage(parseMessage(formatMessage(m)))).toEqual(encodeMessage(m));
      }),
      { numRuns: 5000 },
    );
  });

  it("rejects any truncation, and a readdir entry that runs past its count", () => {
    fc.assert(
      fc.property(message, fc.nat(), (m, cut) => {
        const frame = encodeMessage(m);
        const short = Buffer.from(frame.subarray(0, cut % frame.length));
        if (short.length >= 4) short.writeUInt32LE(short.length, 0);
        expect(() => decodeMessage(short, "9P2000.L")).toThrow();
      }),
      { numRuns: 3000 },
    );
    const reply = encodeMessage({
      type: "Rreaddir",
      tag: 1,
      entries: [{ qid: { type: 0, version: 0, path: 1n }, offset: 1n, type: 8, name: "abc" }],
    });
    reply.writeUInt32LE(reply.readUInt32LE(7) - 1, 7);
    expect(() => decodeMessage(reply, "9P2000.L")).toThrow("a readdir entry runs past its count");
  });

  it("reads Tattach's n_uname only in 9P2000.L", () => {
    const attach = encodeMessage({
      type: "Tattach",
      tag: 1,
      fid: 0,
      afid: 0xffffffff,
      uname: "",
      aname: "",
      nUname: 1000,
    });
    expect(decodeMessage(attach, "9P2000.L")).toMatchObject({ nUname: 1000 });
    expect(() => decodeMessage(attach)).toThrow("Tattach has 4 bytes left over");
  });

  it("lays out Rgetattr in 153 bytes of body and Tlopen as fid then flags", () => {
    const zero = Object.fromEntries(
      LINUX_MESSAGES.Rgetattr.fields.map(([n, k]) => [n, k === "u64" ? 0n : 0]),
    );
    const getattr = { ...zero, type: "Rgetattr", tag: 0, qid: { type: 0, version: 0, path: 0n } } as Message;
    expect(messageSize(getattr)).toBe(7 + 153);
    expect(encodeMessage({ type: "Tlopen", tag: 2, fid: 3, flags: 0o100000 }).toString("hex")).toBe(
      "0f0000000c02000300000000800000",
    );
  });
});
