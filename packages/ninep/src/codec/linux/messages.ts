import type { Qid } from "../qid.js";

/**
 * How a field is carried: integers of 1, 2, 4 or 8 bytes, a string (size[2] then UTF-8), a qid, or
 * Rreaddir's entries (count[4] then whole entries).
 */
export type FieldKind = "u8" | "u16" | "u32" | "u64" | "string" | "qid" | "dirents";

/** One entry of an Rreaddir: `offset` is the cookie a Treaddir passes to go on after it. */
export interface Dirent {
  qid: Qid;
  offset: bigint;
  /** The DT_* type: DT_DIR 4, DT_REG 8, DT_LNK 10, 0 unknown. */
  type: number;
  name: string;
}

/**
 * The messages 9P2000.L adds to 9P2000, by name: the type number and the body's fields in wire order (from
 * diod's protocol.md and Linux's net/9p). One table serves encoding, decoding, sizes and the text form.
 * Tauth and Tattach gain `n_uname[4]` in .L; they stay with the 9P2000 messages (see `nUname`).
 */
export const LINUX_MESSAGES = {
  Rlerror: { number: 7, fields: [["ecode", "u32"]] },
  Tstatfs: { number: 8, fields: [["fid", "u32"]] },
  Rstatfs: {
    number: 9,
    fields: [
      ["fsType", "u32"],
      ["bsize", "u32"],
      ["blocks", "u64"],
      ["bfree", "u64"],
      ["bavail", "u64"],
      ["files", "u64"],
      ["ffree", "u64"],
      ["fsid", "u64"],
      ["namelen", "u32"],
    ],
  },
  Tlopen: {
    number: 12,
    fields: [
      ["fid", "u32"],
      ["flags", "u32"],
    ],
  },
  Rlopen: {
    number: 13,
    fields: [
      ["qid", "qid"],
      ["iounit", "u32"],
    ],
  },
  Tlcreate: {
    number: 14,
    fields: [
      ["fid", "u32"],
      ["name", "string"],
      ["flags", "u32"],
      ["mode", "u32"],
      ["gid", "u32"],
    ],
  },
  Rlcreate: {
    number: 15,
    fields: [
      ["qid", "qid"],
      ["iounit", "u32"],
    ],
  },
  Tsymlink: {
    number: 16,
    fields: [
      ["fid", "u32"],
      ["name", "string"],
      ["symtgt", "string"],
      ["gid", "u32"],
    ],
  },
  Rsymlink: { number: 17, fields: [["qid", "qid"]] },
  Tmknod: {
    number: 18,
    fields: [
      ["dfid", "u32"],
      ["name", "string"],
      ["mode", "u32"],
      ["major", "u32"],
      ["minor", "u32"],
      ["gid", "u32"],
    ],
  },
  Rmknod: { number: 19, fields: [["qid", "qid"]] },
  Trename: {
    number: 20,
    fields: [
      ["fid", "u32"],
      ["dfid", "u32"],
      ["name", "string"],
    ],
  },
  Rrename: { number: 21, fields: [] },
  Treadlink: { number: 22, fields: [["fid", "u32"]] },
  Rreadlink: { number: 23, fields: [["target", "string"]] },
  Tgetattr: {
    number: 24,
    fields: [
      ["fid", "u32"],
      ["requestMask", "u64"],
    ],
  },
  Rgetattr: {
    number: 25,
    fields: [
      ["valid", "u64"],
      ["qid", "qid"],
      ["mode", "u32"],
      ["uid", "u32"],
      ["gid", "u32"],
      ["nlink", "u64"],
      ["rdev", "u64"],
      ["size", "u64"],
      ["blksize", "u64"],
      ["blocks", "u64"],
      ["atimeSec", "u64"],
      ["atimeNsec", "u64"],
      ["mtimeSec", "u64"],
      ["mtimeNsec", "u64"],
      ["ctimeSec", "u64"],
      ["ctimeNsec", "u64"],
      ["btimeSec", "u64"],
      ["btimeNsec", "u64"],
      ["gen", "u64"],
      ["dataVersion", "u64"],
    ],
  },
  Tsetattr: {
    number: 26,
    fields: [
      ["fid", "u32"],
      ["valid", "u32"],
      ["mode", "u32"],
      ["uid", "u32"],
      ["gid", "u32"],
      ["size", "u64"],
      ["atimeSec", "u64"],
      ["atimeNsec", "u64"],
      ["mtimeSec", "u64"],
      ["mtimeNsec", "u64"],
    ],
  },
  Rsetattr: { number: 27, fields: [] },
  Txattrwalk: {
    number: 30,
    fields: [
      ["fid", "u32"],
      ["newfid", "u32"],
      ["name", "string"],
    ],
  },
  Rxattrwalk: { number: 31, fields: [["size", "u64"]] },
  Txattrcreate: {
    number: 32,
    fields: [
      ["fid", "u32"],
      ["name", "string"],
      ["attrSize", "u64"],
      ["flags", "u32"],
    ],
  },
  Rxattrcreate: { number: 33, fields: [] },
  Treaddir: {
    number: 40,
    fields: [
      ["fid", "u32"],
      ["offset", "u64"],
      ["count", "u32"],
    ],
  },
  Rreaddir: { number: 41, fields: [["entries", "dirents"]] },
  Tfsync: {
    number: 50,
    fields: [
      ["fid", "u32"],
      ["datasync", "u32"],
    ],
  },
  Rfsync: { number: 51, fields: [] },
  Tlock: {
    number: 52,
    fields: [
      ["fid", "u32"],
      ["lockType", "u8"],
      ["flags", "u32"],
      ["start", "u64"],
      ["length", "u64"],
      ["procId", "u32"],
      ["clientId", "string"],
    ],
  },
  Rlock: { number: 53, fields: [["status", "u8"]] },
  Tgetlock: {
    number: 54,
    fields: [
      ["fid", "u32"],
      ["lockType", "u8"],
      ["start", "u64"],
      ["length", "u64"],
      ["procId", "u32"],
      ["clientId", "string"],
    ],
  },
  Rgetlock: {
    number: 55,
    fields: [
      ["lockType", "u8"],
      ["start", "u64"],
      ["length", "u64"],
      ["procId", "u32"],
      ["clientId", "string"],
    ],
  },
  Tlink: {
    number: 70,
    fields: [
      ["dfid", "u32"],
      ["fid", "u32"],
      ["name", "string"],
    ],
  },
  Rlink: { number: 71, fields: [] },
  Tmkdir: {
    number: 72,
    fields: [
      ["dfid", "u32"],
      ["name", "string"],
      ["mode", "u32"],
      ["gid", "u32"],
    ],
  },
  Rmkdir: { number: 73, fields: [["qid", "qid"]] },
  Trenameat: {
    number: 74,
    fields: [
      ["olddirfid", "u32"],
      ["oldname", "string"],
      ["newdirfid", "u32"],
      ["newname", "string"],
    ],
  },
  Rrenameat: { number: 75, fields: [] },
  Tunlinkat: {
    number: 76,
    fields: [
      ["dirfid", "u32"],
      ["name", "string"],
      ["flags", "u32"],
    ],
  },
  Runlinkat: { number: 77, fields: [] },
} as const satisfies Record<string, { number: number; fields: ReadonlyArray<readonly [string, FieldKind]> }>;

export type LinuxMessageName = keyof typeof LINUX_MESSAGES;

type ValueOf<K extends FieldKind> = K extends "u64"
  ? bigint
  : K extends "string"
    ? string
    : K extends "qid"
      ? Qid
      : K extends "dirents"
        ? Dirent[]
        : number;

type Fields<N extends LinuxMessageName> = (typeof LINUX_MESSAGES)[N]["fields"][number];

/** The message named N, as an object: its type, tag and fields. */
export type LinuxMessageOf<N extends LinuxMessageName> = { type: N; tag: number } & {
  -readonly [F in Fields<N> as F[0]]: ValueOf<F[1]>;
};

type AnyLinuxMessage<N extends LinuxMessageName = LinuxMessageName> = N extends LinuxMessageName
  ? LinuxMessageOf<N>
  : never;

/** Every request 9P2000.L adds. */
export type LinuxTMessage = Extract<AnyLinuxMessage, { type: `T${string}` }>;
/** Every reply 9P2000.L adds (Rlerror among them). */
export type LinuxRMessage = Extract<AnyLinuxMessage, { type: `R${string}` }>;
export type LinuxMessage = LinuxTMessage | LinuxRMessage;

/** The table's entries by type number. */
export const LINUX_BY_NUMBER: ReadonlyMap<number, LinuxMessageName> = new Map(
  Object.entries(LINUX_MESSAGES).map(([name, spec]) => [spec.number, name as LinuxMessageName]),
);

export const isLinuxMessageName = (type: string): type is LinuxMessageName => type in LINUX_MESSAGES;
