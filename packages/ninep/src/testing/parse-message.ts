import { MessageTypeNumber, NOFID, NOTAG } from "../codec/constants.js";
import { QID_TYPE_LETTERS } from "../codec/format-values.js";
import { isLinuxMessageName, LINUX_MESSAGES, type LinuxMessageName } from "../codec/linux/messages.js";
import { DONT_TOUCH_QID } from "../codec/stat.js";
import type { Message, Qid, Stat } from "../codec/types.js";
import { type Token, tokenize } from "./tokens.js";

const QID_LETTERS: Record<string, number> = Object.fromEntries(
  QID_TYPE_LETTERS.map(([bit, letter]) => [letter, bit]),
);

function word(t: Token | undefined, what: string): string {
  if (t?.kind !== "word") throw new Error(`${what}: expected a word`);
  return t.text;
}

function text(t: Token | undefined, what: string): string {
  if (t?.kind === "string") return t.bytes.toString("utf8");
  return word(t, what);
}

function bytes(t: Token | undefined, what: string): Buffer {
  if (t?.kind === "string") return t.bytes;
  return Buffer.from(word(t, what), "utf8");
}

function bigNumber(t: Token | undefined, what: string, allOnes: bigint): bigint {
  const w = word(t, what);
  if (w === "~") return allOnes;
  if (w === "NOTAG") return BigInt(NOTAG);
  if (w === "NOFID") return BigInt(NOFID);
  if (/^0x[0-9a-f]+$/i.test(w)) return BigInt(w);
  if (/^0[0-7]+$/.test(w)) return BigInt(`0o${w.slice(1)}`);
  if (/^[0-9]+$/.test(w)) return BigInt(w);
  throw new Error(`${what}: '${w}' is not a number`);
}

function number(t: Token | undefined, what: string, allOnes = 0xffffffff): number {
  return Number(bigNumber(t, what, BigInt(allOnes)));
}

function qid(t: Token | undefined, what: string): Qid {
  if (t?.kind === "word" && t.text === "~") return { ...DONT_TOUCH_QID };
  if (t?.kind !== "group") throw new Error(`${what}: expected (path version type)`);
  const [path, version, letters] = t.items;
  const typeText = letters ? word(letters, what) : "";
  if (typeText.startsWith("0x")) {
    return {
      type: Number(typeText),
      version: number(version, what),
      path: bigNumber(path, what, 0xffffffffffffffffn),
    };
  }
  let type = 0;
  for (const ch of typeText) {
    const bit = QID_LETTERS[ch];
    if (bit === undefined) throw new Error(`${what}: unknown qid type letter '${ch}'`);
    type |= bit;
  }
  return { type, version: number(version, what), path: bigNumber(path, what, 0xffffffffffffffffn) };
}

function stat(t: Token | undefined): Stat {
  if (t?.kind !== "group") throw new Error("stat: expected ('name' 'uid' 'gid' 'muid' q … )");
  const [name, uid, gid, muid, ...rest] = t.items;
  const fields = new Map<string, Token>();
  for (let i = 0; i + 1 < rest.length; i += 2) fields.set(word(rest[i], "stat key"), rest[i + 1]!);
  const get = (k: string) => {
    const v = fields.get(k);
    if (!v) throw new Error(`stat: missing '${k}'`);
    return v;
  };
  return {
    name: text(name, "stat name"),
    uid: text(uid, "stat uid"),
    gid: text(gid, "stat gid"),
    muid: text(muid, "stat muid"),
    qid: qid(get("q"), "stat qid"),
    mode: number(get("m"), "stat mode"),
    atime: number(get("at"), "stat atime"),
    mtime: number(get("mt"), "stat mtime"),
    length: bigNumber(get("l"), "stat length", 0xffffffffffffffffn),
    type: number(get("t"), "stat type", 0xffff),
    dev: number(get("d"), "stat dev"),
  };
}

/**
 * Reads one message in the text form `formatMessage` writes: `Twalk tag 1 fid 0 newfid 1 wname [a b]`.
 * A missing tag is 0. Numbers may be decimal, 0x hex, 0-prefixed octal, NOTAG, NOFID or ~ (all ones).
 */
export function parseMessage(line: string): Message {
  const tokens = tokenize(line);
  const type = word(tokens[0], "message type");
  if (!(type in MessageTypeNumber) && !isLinuxMessageName(type))
    throw new Error(`unknown message type '${type}'`);
  const f = new Map<string, Token>();
  for (let i = 1; i + 1 < tokens.length; i += 2) f.set(word(tokens[i], `${type} field name`), tokens[i + 1]!);
  const tag = f.has("tag") ? number(f.get("tag"), "tag") : 0;
  const n = (k: string) => number(f.get(k), `${type} ${k}`);
  const s = (k: string) => text(f.get(k), `${type} ${k}`);
  const list = (k: string) => {
    const v = f.get(k);
    if (v?.kind !== "list") throw new Error(`${type} ${k}: expected [ … ]`);
    return v.items;
  };
  const m = { type, tag } as Record<string, unknown>;
  if (isLinuxMessageName(type)) return linuxFields(type, f, m) as unknown as Message;
  if (f.has("n_uname")) m.nUname = n("n_uname");
  switch (type) {
    case "Tversion":
    case "Rversion":
      Object.assign(m, { msize: n("msize"), version: s("version") });
      break;
    case "Tauth":
      Object.assign(m, { afid: n("afid"), uname: s("uname"), aname: s("aname") });
      break;
    case "Rauth":
      m.aqid = qid(f.get("aqid"), "aqid");
      break;
    case "Tattach":
      Object.assign(m, { fid: n("fid"), afid: n("afid"), uname: s("uname"), aname: s("aname") });
      break;
    case "Rattach":
      m.qid = qid(f.get("qid"), "qid");
      break;
    case "Rerror":
      m.ename = s("ename");
      break;
    case "Tflush":
      m.oldtag = n("oldtag");
      break;
    case "Twalk":
      Object.assign(m, {
        fid: n("fid"),
        newfid: n("newfid"),
        wnames: list("wname").map((t) => text(t, "wname")),
      });
      break;
    case "Rwalk":
      m.wqids = list("wqid").map((t) => qid(t, "wqid"));
      break;
    case "Topen":
      Object.assign(m, { fid: n("fid"), mode: n("mode") });
      break;
    case "Ropen":
    case "Rcreate":
      Object.assign(m, { qid: qid(f.get("qid"), "qid"), iounit: n("iounit") });
      break;
    case "Tcreate":
      Object.assign(m, { fid: n("fid"), name: s("name"), perm: n("perm"), mode: n("mode") });
      break;
    case "Tread":
      Object.assign(m, {
        fid: n("fid"),
        offset: bigNumber(f.get("offset"), "offset", 0xffffffffffffffffn),
        count: n("count"),
      });
      break;
    case "Rread":
      m.data = bytes(f.get("data"), "data");
      break;
    case "Twrite":
      Object.assign(m, {
        fid: n("fid"),
        offset: bigNumber(f.get("offset"), "offset", 0xffffffffffffffffn),
        data: bytes(f.get("data"), "data"),
      });
      break;
    case "Rwrite":
      m.count = n("count");
      break;
    case "Tclunk":
    case "Tremove":
    case "Tstat":
      m.fid = n("fid");
      break;
    case "Rstat":
      m.stat = stat(f.get("stat"));
      break;
    case "Twstat":
      Object.assign(m, { fid: n("fid"), stat: stat(f.get("stat")) });
      break;
  }
  return m as unknown as Message;
}

/** The fields of a 9P2000.L message, by the kinds its table gives them. */
function linuxFields(type: LinuxMessageName, f: Map<string, Token>, m: Record<string, unknown>) {
  for (const [name, kind] of LINUX_MESSAGES[type].fields) {
    const t = f.get(name);
    const what = `${type} ${name}`;
    if (kind === "u64") m[name] = bigNumber(t, what, 0xffffffffffffffffn);
    else if (kind === "string") m[name] = text(t, what);
    else if (kind === "qid") m[name] = qid(t, what);
    else if (kind === "dirents") {
      if (t?.kind !== "list") throw new Error(`${what}: expected [ (qid offset type 'name') … ]`);
      m[name] = t.items.map((entry) => {
        if (entry.kind !== "group") throw new Error(`${what}: expected (qid offset type 'name')`);
        const [q, offset, dtype, entryName] = entry.items;
        return {
          qid: qid(q, what),
          offset: bigNumber(offset, what, 0xffffffffffffffffn),
          type: number(dtype, what, 0xff),
          name: text(entryName, what),
        };
      });
    } else m[name] = number(t, what, kind === "u8" ? 0xff : 0xffffffff);
  }
  return m;
}
