import { HEADER_SIZE, MAXWELEM, QID_SIZE } from "./constants.js";
import { ProtocolError } from "./errors.js";
import { decodeLinuxBody } from "./linux/codec.js";
import { LINUX_BY_NUMBER } from "./linux/messages.js";
import { FrameCursor } from "./reader.js";
import type { Message } from "./types.js";

/** The protocol a connection speaks: 9P2000.L adds its messages and `n_uname[4]` to Tauth and Tattach. */
export type Dialect = "9P2000" | "9P2000.L";

/**
 * Decodes one whole frame (as delimited by its size field). Throws ProtocolError — carrying the tag when the
 * header was readable — for an unknown type, a field running past the end, or bytes left over. Never allocates
 * more than the frame itself: counts are checked against the bytes present before anything is read.
 */
export function decodeMessage(frame: Buffer, dialect: Dialect = "9P2000"): Message {
  if (frame.length < HEADER_SIZE) {
    throw new ProtocolError(`message of ${frame.length} bytes is shorter than a header`);
  }
  const size = frame.readUInt32LE(0);
  if (size !== frame.length) {
    throw new ProtocolError(`message size field says ${size} bytes but the frame has ${frame.length}`);
  }
  const typeNumber = frame[4]!;
  const tag = frame.readUInt16LE(5);
  const c = new FrameCursor(frame, HEADER_SIZE, frame.length, tag);
  const linux = dialect === "9P2000.L";
  const linuxType = linux ? LINUX_BY_NUMBER.get(typeNumber) : undefined;
  const m = linuxType ? decodeLinuxBody(c, linuxType, tag) : decodeBody(c, typeNumber, tag, linux);
  if (c.offset !== c.end) {
    throw new ProtocolError(`${m.type} has ${c.end - c.offset} bytes left over`, tag);
  }
  return m;
}

function decodeBody(c: FrameCursor, typeNumber: number, tag: number, linux: boolean): Message {
  switch (typeNumber) {
    case 100:
      return { type: "Tversion", tag, msize: c.u32("msize"), version: c.string("version") };
    case 101:
      return { type: "Rversion", tag, msize: c.u32("msize"), version: c.string("version") };
    case 102: {
      const afid = c.u32("afid");
      const uname = c.string("uname");
      const aname = c.string("aname");
      return { type: "Tauth", tag, afid, uname, aname, ...(linux && { nUname: c.u32("n_uname") }) };
    }
    case 103:
      return { type: "Rauth", tag, aqid: c.qid("aqid") };
    case 104: {
      const fid = c.u32("fid");
      const afid = c.u32("afid");
      const uname = c.string("uname");
      const aname = c.string("aname");
      return { type: "Tattach", tag, fid, afid, uname, aname, ...(linux && { nUname: c.u32("n_uname") }) };
    }
    case 105:
      return { type: "Rattach", tag, qid: c.qid() };
    case 107:
      return { type: "Rerror", tag, ename: c.string("ename") };
    case 108:
      return { type: "Tflush", tag, oldtag: c.u16("oldtag") };
    case 109:
      return { type: "Rflush", tag };
    case 110: {
      const fid = c.u32("fid");
      const newfid = c.u32("newfid");
      const n = c.u16("nwname");
      if (n > MAXWELEM) {
        throw new ProtocolError(`walk of ${n} names exceeds the limit of ${MAXWELEM}`, tag);
      }
      const wnames: string[] = [];
      for (let i = 0; i < n; i++) wnames.push(c.string("wname"));
      return { type: "Twalk", tag, fid, newfid, wnames };
    }
    case 111: {
      const n = c.u16("nwqid");
      if (n > MAXWELEM) {
        throw new ProtocolError(`walk reply of ${n} qids exceeds the limit of ${MAXWELEM}`, tag);
      }
      c.need(QID_SIZE * n, "wqid");
      const wqids = [];
      for (let i = 0; i < n; i++) wqids.push(c.qid("wqid"));
      return { type: "Rwalk", tag, wqids };
    }
    case 112:
      return { type: "Topen", tag, fid: c.u32("fid"), mode: c.u8("mode") };
    case 113:
      return { type: "Ropen", tag, qid: c.qid(), iounit: c.u32("iounit") };
    case 114:
      return {
        type: "Tcreate",
        tag,
        fid: c.u32("fid"),
        name: c.string("name"),
        perm: c.u32("perm"),
        mode: c.u8("mode"),
      };
    case 115:
      return { type: "Rcreate", tag, qid: c.qid(), iounit: c.u32("iounit") };
    case 116:
      return { type: "Tread", tag, fid: c.u32("fid"), offset: c.u64("offset"), count: c.u32("count") };
    case 117: {
      const count = c.u32("count");
      return { type: "Rread", tag, data: c.bytes(count) };
    }
    case 118: {
      const fid = c.u32("fid");
      const offset = c.u64("offset");
      const count = c.u32("count");
      return { type: "Twrite", tag, fid, offset, data: c.bytes(count) };
    }
    case 119:
      return { type: "Rwrite", tag, count: c.u32("count") };
    case 120:
      return { type: "Tclunk", tag, fid: c.u32("fid") };
    case 121:
      return { type: "Rclunk", tag };
    case 122:
      return { type: "Tremove", tag, fid: c.u32("fid") };
    case 123:
      return { type: "Rremove", tag };
    case 124:
      return { type: "Tstat", tag, fid: c.u32("fid") };
    case 125: {
      const n = c.u16("stat length");
      const start = c.offset;
      const stat = c.stat();
      if (c.offset - start !== n) throw new ProtocolError("Rstat length does not match its stat", tag);
      return { type: "Rstat", tag, stat };
    }
    case 126: {
      const fid = c.u32("fid");
      const n = c.u16("stat length");
      const start = c.offset;
      const stat = c.stat();
      if (c.offset - start !== n) throw new ProtocolError("Twstat length does not match its stat", tag);
      return { type: "Twstat", tag, fid, stat };
    }
    case 127:
      return { type: "Rwstat", tag };
    default:
      throw new ProtocolError(`unknown message type ${typeNumber}`, tag);
  }
}
