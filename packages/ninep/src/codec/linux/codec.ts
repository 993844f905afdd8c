import { QID_SIZE } from "../constants.js";
import { ProtocolError } from "../errors.js";
import type { FrameCursor } from "../reader.js";
import { type FrameWriter, stringSize } from "../writer.js";
import {
  type Dirent,
  type FieldKind,
  LINUX_MESSAGES,
  type LinuxMessage,
  type LinuxMessageName,
} from "./messages.js";

type Fields = ReadonlyArray<readonly [string, FieldKind]>;

const fieldsOf = (type: LinuxMessageName): Fields => LINUX_MESSAGES[type].fields;
const valuesOf = (m: LinuxMessage) => m as unknown as Record<string, unknown>;

/** Bytes of one Rreaddir entry: qid[13] offset[8] type[1] name[s]. */
export function direntSize(d: Dirent): number {
  return QID_SIZE + 8 + 1 + stringSize(d.name);
}

function fieldSize(kind: FieldKind, value: unknown): number {
  switch (kind) {
    case "u8":
      return 1;
    case "u16":
      return 2;
    case "u32":
      return 4;
    case "u64":
      return 8;
    case "string":
      return stringSize(value as string);
    case "qid":
      return QID_SIZE;
    case "dirents": {
      let n = 4;
      for (const d of value as Dirent[]) n += direntSize(d);
      return n;
    }
  }
}

/** Encoded size of a 9P2000.L message's body. */
export function linuxBodySize(m: LinuxMessage): number {
  const values = valuesOf(m);
  let n = 0;
  for (const [name, kind] of fieldsOf(m.type)) n += fieldSize(kind, values[name]);
  return n;
}

/** Writes a 9P2000.L message's body. */
export function encodeLinuxBody(w: FrameWriter, m: LinuxMessage): void {
  const values = valuesOf(m);
  for (const [name, kind] of fieldsOf(m.type)) {
    const value = values[name];
    switch (kind) {
      case "u8":
        w.u8(value as number);
        break;
      case "u16":
        w.u16(value as number);
        break;
      case "u32":
        w.u32(value as number);
        break;
      case "u64":
        w.u64(value as bigint);
        break;
      case "string":
        w.string(value as string);
        break;
      case "qid":
        w.qid(value as Dirent["qid"]);
        break;
      case "dirents": {
        const entries = value as Dirent[];
        let count = 0;
        for (const d of entries) count += direntSize(d);
        w.u32(count);
        for (const d of entries) {
          w.qid(d.qid);
          w.u64(d.offset);
          w.u8(d.type);
          w.string(d.name);
        }
        break;
      }
    }
  }
}

/** Reads a 9P2000.L message's body; every count is checked against the bytes present first. */
export function decodeLinuxBody(c: FrameCursor, type: LinuxMessageName, tag: number): LinuxMessage {
  const m: Record<string, unknown> = { type, tag };
  for (const [name, kind] of fieldsOf(type)) {
    switch (kind) {
      case "u8":
        m[name] = c.u8(name);
        break;
      case "u16":
        m[name] = c.u16(name);
        break;
      case "u32":
        m[name] = c.u32(name);
        break;
      case "u64":
        m[name] = c.u64(name);
        break;
      case "string":
        m[name] = c.string(name);
        break;
      case "qid":
        m[name] = c.qid(name);
        break;
      case "dirents":
        m[name] = readDirents(c, tag);
        break;
    }
  }
  return m as unknown as LinuxMessage;
}

/** Rreaddir's count[4] and the whole entries it holds: an entry cut short is a protocol error. */
function readDirents(c: FrameCursor, tag: number): Dirent[] {
  const count = c.u32("count");
  c.need(count, "readdir data");
  const end = c.offset + count;
  const entries: Dirent[] = [];
  while (c.offset < end) {
    const qid = c.qid("entry qid");
    const offset = c.u64("entry offset");
    const type = c.u8("entry type");
    const name = c.string("entry name");
    if (c.offset > end) throw new ProtocolError("a readdir entry runs past its count", tag);
    entries.push({ qid, offset, type, name });
  }
  return entries;
}
