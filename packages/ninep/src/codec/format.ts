import { NOFID, NOTAG, QT } from "./constants.js";
import { isDontTouchQid } from "./stat.js";
import type { Message, Qid, Stat } from "./types.js";

/** The qid type bits as transcripts spell them (parse-message reads them back). */
export const QID_TYPE_LETTERS: ReadonlyArray<[number, string]> = [
  [QT.DIR, "d"],
  [QT.APPEND, "a"],
  [QT.EXCL, "l"],
  [QT.MOUNT, "m"],
  [QT.AUTH, "A"],
  [QT.TMP, "t"],
];

export interface FormatOptions {
  /** Show at most this many bytes of Rread/Twrite data (default: all). */
  maxData?: number;
}

/** Quotes a string for the text form: '…' with \\, \\', \\n, \\t and \\xNN escapes. */
export function quote(s: string | Uint8Array, max = Number.POSITIVE_INFINITY): string {
  const bytes =
    typeof s === "string" ? Buffer.from(s, "utf8") : Buffer.from(s.buffer, s.byteOffset, s.byteLength);
  const shown = bytes.length > max ? bytes.subarray(0, max) : bytes;
  let out = "'";
  const text = shown.toString("utf8");
  const roundTrips = Buffer.byteLength(text, "utf8") === shown.length && !text.includes("\ufffd");
  if (roundTrips) {
    for (const ch of text) {
      out += escapeChar(ch);
    }
  } else {
    for (const b of shown) {
      out +=
        b >= 0x20 && b < 0x7f ? escapeChar(String.fromCharCode(b)) : `\\x${b.toString(16).padStart(2, "0")}`;
    }
  }
  out += "'";
  if (shown.length < bytes.length) out += `…+${bytes.length - shown.length}`;
  return out;
}

function escapeChar(ch: string): string {
  switch (ch) {
    case "\\":
      return "\\\\";
    case "'":
      return "\\'";
    case "\n":
      return "\\n";
    case "\t":
      return "\\t";
    default: {
      const code = ch.codePointAt(0)!;
      return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, "0")}` : ch;
    }
  }
}

export function formatQid(q: Qid): string {
  if (isDontTouchQid(q)) return "~";
  let letters = "";
  let known = 0;
  for (const [bit, letter] of QID_TYPE_LETTERS) {
    known |= bit;
    if (q.type & bit) letters += letter;
  }
  if (q.type & ~known) letters = `0x${q.type.toString(16)}`;
  return letters ? `(${q.path} ${q.version} ${letters})` : `(${q.path} ${q.version})`;
}

function num(v: number | bigint, allOnes: number | bigint, radix = 10): string {
  if (v === allOnes) return "~";
  return radix === 8 ? `0${v.toString(8)}` : v.toString();
}

export function formatStat(s: Stat): string {
  return (
    `(${quote(s.name)} ${quote(s.uid)} ${quote(s.gid)} ${quote(s.muid)} q ${formatQid(s.qid)}` +
    ` m ${num(s.mode, 0xffffffff, 8)} at ${num(s.atime, 0xffffffff)} mt ${num(s.mtime, 0xffffffff)}` +
    ` l ${num(s.length, 0xffffffffffffffffn)} t ${num(s.type, 0xffff)} d ${num(s.dev, 0xffffffff)})`
  );
}

const fidText = (fid: number) => (fid === NOFID ? "NOFID" : String(fid));

/** One line of text describing a message, in the form the transcript tests read back. */
export function formatMessage(m: Message, opts: FormatOptions = {}): string {
  const head = `${m.type} tag ${m.tag === NOTAG ? "NOTAG" : m.tag}`;
  switch (m.type) {
    case "Tversion":
    case "Rversion":
      return `${head} msize ${m.msize} version ${quote(m.version)}`;
    case "Tauth":
      return `${head} afid ${fidText(m.afid)} uname ${quote(m.uname)} aname ${quote(m.aname)}`;
    case "Rauth":
      return `${head} aqid ${formatQid(m.aqid)}`;
    case "Tattach":
      return `${head} fid ${m.fid} afid ${fidText(m.afid)} uname ${quote(m.uname)} aname ${quote(m.aname)}`;
    case "Rattach":
      return `${head} qid ${formatQid(m.qid)}`;
    case "Rerror":
      return `${head} ename ${quote(m.ename)}`;
    case "Tflush":
      return `${head} oldtag ${m.oldtag}`;
    case "Twalk":
      return `${head} fid ${m.fid} newfid ${m.newfid} wname [${m.wnames.map((w) => quote(w)).join(" ")}]`;
    case "Rwalk":
      return `${head} wqid [${m.wqids.map(formatQid).join(" ")}]`;
    case "Topen":
      return `${head} fid ${m.fid} mode ${m.mode}`;
    case "Ropen":
    case "Rcreate":
      return `${head} qid ${formatQid(m.qid)} iounit ${m.iounit}`;
    case "Tcreate":
      return `${head} fid ${m.fid} name ${quote(m.name)} perm 0${m.perm.toString(8)} mode ${m.mode}`;
    case "Tread":
      return `${head} fid ${m.fid} offset ${m.offset} count ${m.count}`;
    case "Rread":
      return `${head} count ${m.data.length} data ${quote(m.data, opts.maxData)}`;
    case "Twrite":
      return `${head} fid ${m.fid} offset ${m.offset} count ${m.data.length} data ${quote(m.data, opts.maxData)}`;
    case "Rwrite":
      return `${head} count ${m.count}`;
    case "Tclunk":
    case "Tremove":
    case "Tstat":
      return `${head} fid ${m.fid}`;
    case "Rstat":
      return `${head} stat ${formatStat(m.stat)}`;
    case "Twstat":
      return `${head} fid ${m.fid} stat ${formatStat(m.stat)}`;
    case "Rflush":
    case "Rclunk":
    case "Rremove":
    case "Rwstat":
      return head;
  }
}
