import { NOFID, NOTAG } from "./constants.js";
import { formatQid, quote } from "./format-values.js";
import { formatLinuxMessage } from "./linux/format.js";

export { formatQid } from "./format-values.js";

import { isLinuxMessageName, type LinuxMessage } from "./linux/messages.js";
import type { Message, Stat } from "./types.js";

export interface FormatOptions {
  /** Show at most this many bytes of Rread/Twrite data (default: all). */
  maxData?: number;
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
  if (isLinuxMessageName(m.type)) return formatLinuxMessage(head, m as LinuxMessage);
  const nUname = "nUname" in m && m.nUname !== undefined ? ` n_uname ${fidText(m.nUname)}` : "";
  switch (m.type) {
    case "Tversion":
    case "Rversion":
      return `${head} msize ${m.msize} version ${quote(m.version)}`;
    case "Tauth":
      return `${head} afid ${fidText(m.afid)} uname ${quote(m.uname)} aname ${quote(m.aname)}${nUname}`;
    case "Rauth":
      return `${head} aqid ${formatQid(m.aqid)}`;
    case "Tattach":
      return `${head} fid ${m.fid} afid ${fidText(m.afid)} uname ${quote(m.uname)} aname ${quote(m.aname)}${nUname}`;
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
