import { MessageTypeNumber, QID_SIZE } from "./constants.js";
import { encodeLinuxBody, linuxBodySize } from "./linux/codec.js";
import { isLinuxMessageName, LINUX_MESSAGES, type LinuxMessage } from "./linux/messages.js";
import type { Message } from "./types.js";
import { FrameWriter, statSize, stringSize } from "./writer.js";

const isLinux = (m: Message): m is LinuxMessage => isLinuxMessageName(m.type);
const nUnameSize = (m: { nUname?: number }) => (m.nUname === undefined ? 0 : 4);

/** Encoded size of a message's body (everything after the 7-byte header). */
function bodySize(m: Message): number {
  if (isLinux(m)) return linuxBodySize(m);
  switch (m.type) {
    case "Tversion":
    case "Rversion":
      return 4 + stringSize(m.version);
    case "Tauth":
      return 4 + stringSize(m.uname) + stringSize(m.aname) + nUnameSize(m);
    case "Rauth":
      return QID_SIZE;
    case "Tattach":
      return 8 + stringSize(m.uname) + stringSize(m.aname) + nUnameSize(m);
    case "Rattach":
      return QID_SIZE;
    case "Rerror":
      return stringSize(m.ename);
    case "Tflush":
      return 2;
    case "Twalk": {
      let n = 10;
      for (const w of m.wnames) n += stringSize(w);
      return n;
    }
    case "Rwalk":
      return 2 + QID_SIZE * m.wqids.length;
    case "Topen":
      return 5;
    case "Ropen":
    case "Rcreate":
      return 17;
    case "Tcreate":
      return 4 + stringSize(m.name) + 5;
    case "Tread":
      return 16;
    case "Rread":
      return 4 + m.data.length;
    case "Twrite":
      return 16 + m.data.length;
    case "Rwrite":
      return 4;
    case "Tclunk":
    case "Tremove":
    case "Tstat":
      return 4;
    case "Rstat":
      return 2 + statSize(m.stat);
    case "Twstat":
      return 6 + statSize(m.stat);
    case "Rflush":
    case "Rclunk":
    case "Rremove":
    case "Rwstat":
      return 0;
  }
}

/** Encoded size of a whole message, header included. */
export function messageSize(m: Message): number {
  return 7 + bodySize(m);
}

/** Encodes one message into a new buffer holding exactly its frame. */
export function encodeMessage(m: Message): Buffer {
  const size = messageSize(m);
  const w = new FrameWriter(Buffer.allocUnsafe(size));
  w.u32(size);
  if (isLinux(m)) {
    w.u8(LINUX_MESSAGES[m.type].number);
    w.u16(m.tag);
    encodeLinuxBody(w, m);
    return w.buf;
  }
  w.u8(MessageTypeNumber[m.type]);
  w.u16(m.tag);
  switch (m.type) {
    case "Tversion":
    case "Rversion":
      w.u32(m.msize);
      w.string(m.version);
      break;
    case "Tauth":
      w.u32(m.afid);
      w.string(m.uname);
      w.string(m.aname);
      if (m.nUname !== undefined) w.u32(m.nUname);
      break;
    case "Rauth":
      w.qid(m.aqid);
      break;
    case "Tattach":
      w.u32(m.fid);
      w.u32(m.afid);
      w.string(m.uname);
      w.string(m.aname);
      if (m.nUname !== undefined) w.u32(m.nUname);
      break;
    case "Rattach":
      w.qid(m.qid);
      break;
    case "Rerror":
      w.string(m.ename);
      break;
    case "Tflush":
      w.u16(m.oldtag);
      break;
    case "Twalk":
      w.u32(m.fid);
      w.u32(m.newfid);
      w.u16(m.wnames.length);
      for (const name of m.wnames) w.string(name);
      break;
    case "Rwalk":
      w.u16(m.wqids.length);
      for (const q of m.wqids) w.qid(q);
      break;
    case "Topen":
      w.u32(m.fid);
      w.u8(m.mode);
      break;
    case "Ropen":
    case "Rcreate":
      w.qid(m.qid);
      w.u32(m.iounit);
      break;
    case "Tcreate":
      w.u32(m.fid);
      w.string(m.name);
      w.u32(m.perm);
      w.u8(m.mode);
      break;
    case "Tread":
      w.u32(m.fid);
      w.u64(m.offset);
      w.u32(m.count);
      break;
    case "Rread":
      w.u32(m.data.length);
      w.bytes(m.data);
      break;
    case "Twrite":
      w.u32(m.fid);
      w.u64(m.offset);
      w.u32(m.data.length);
      w.bytes(m.data);
      break;
    case "Rwrite":
      w.u32(m.count);
      break;
    case "Tclunk":
    case "Tremove":
    case "Tstat":
      w.u32(m.fid);
      break;
    case "Rstat":
      w.sized(() => w.stat(m.stat));
      break;
    case "Twstat":
      w.u32(m.fid);
      w.sized(() => w.stat(m.stat));
      break;
    case "Rflush":
    case "Rclunk":
    case "Rremove":
    case "Rwstat":
      break;
  }
  return w.buf;
}
