import { DM, OREAD, OTRUNC } from "../../codec/constants.js";
import { direntSize } from "../../codec/linux/codec.js";
import {
  AT_REMOVEDIR,
  Errno,
  LinuxOpen,
  LockStatus,
  LockType,
  V9FS_MAGIC,
} from "../../codec/linux/constants.js";
import {
  type Dirent,
  isLinuxMessageName,
  type LinuxMessageOf,
  type LinuxTMessage,
} from "../../codec/linux/messages.js";
import { dontTouchStat } from "../../codec/stat.js";
import type { RMessage, TMessage } from "../../codec/types.js";
import type { HeldFids } from "../fid-access.js";
import { FidState } from "../fid-state.js";
import { call, checkName, isDir } from "../handler-call.js";
import { refuse } from "../ninep-error.js";
import type { PendingRequest } from "../pending-request.js";
import { attributesOf, DROPPABLE, direntType, UNMAPPABLE, wstatOf } from "./attributes.js";
import type { PlainHandlers } from "./plain-handlers.js";

type Of<N extends LinuxTMessage["type"]> = LinuxMessageOf<N>;
type Used<A> = HeldFids<A>;

export const isLinuxRequest = (m: TMessage): m is LinuxTMessage => isLinuxMessageName(m.type);

/**
 * 9P2000.L's requests, done with the same FileServer as 9P2000: Tlopen and Tlcreate are Topen and Tcreate
 * with Linux flags, Tgetattr and Tsetattr are Tstat and Twstat, Treaddir lists with cookies, and the
 * directory operations (Tmkdir, Tunlinkat, Trenameat, Trename) walk a fid of their own to the name. What a
 * 9P2000 tree has no notion of — links, device nodes, locks, extended attributes — is answered as Linux
 * expects of a file system without them.
 */
export function handleLinux<A>(
  h: PlainHandlers<A>,
  req: PendingRequest,
  m: LinuxTMessage,
  used: Used<A>,
): Promise<RMessage> {
  switch (m.type) {
    case "Tlopen":
      return lopen(h, req, m, used);
    case "Tlcreate":
      return lcreate(h, req, m, used);
    case "Tgetattr":
      return getattr(h, req, m, used);
    case "Tsetattr":
      return setattr(h, req, m, used);
    case "Treaddir":
      return readdir(h, req, m, used);
    case "Tstatfs":
      return whenReady(h, req, m.fid, used, () => ({
        type: "Rstatfs",
        tag: m.tag,
        fsType: V9FS_MAGIC,
        bsize: 4096,
        blocks: 0n,
        bfree: 0n,
        bavail: 0n,
        files: 0n,
        ffree: 0n,
        fsid: 0n,
        namelen: 255,
      }));
    case "Tfsync":
      return whenReady(h, req, m.fid, used, () => ({ type: "Rfsync", tag: m.tag }));
    // Nothing else can lock a file of the tree through this server: every lock is granted.
    case "Tlock":
      return whenReady(h, req, m.fid, used, () => ({
        type: "Rlock",
        tag: m.tag,
        status: LockStatus.SUCCESS,
      }));
    case "Tgetlock":
      return whenReady(h, req, m.fid, used, () => ({
        type: "Rgetlock",
        tag: m.tag,
        lockType: LockType.UNLCK,
        start: m.start,
        length: m.length,
        procId: m.procId,
        clientId: m.clientId,
      }));
    case "Txattrwalk":
      return xattrwalk(h, req, m, used);
    case "Txattrcreate":
      return Promise.reject(refuse("extended attributes are not supported", Errno.EOPNOTSUPP));
    case "Tmkdir":
      return mkdir(h, req, m, used);
    case "Tunlinkat":
      return unlinkat(h, req, m, used);
    case "Trenameat":
      return renameat(h, req, m, used);
    case "Trename":
      return rename(h, req, m, used);
    case "Tsymlink":
    case "Tmknod":
    case "Tlink":
      return Promise.reject(refuse(`${m.type.slice(1)} is not supported by this tree`, Errno.EPERM));
    case "Treadlink":
      return Promise.reject(refuse("not a symbolic link", Errno.EINVAL));
  }
}

async function whenReady<A>(
  h: PlainHandlers<A>,
  req: PendingRequest,
  fid: number,
  used: Used<A>,
  answer: (f: FidState<A>) => RMessage,
): Promise<RMessage> {
  const { f, ready } = h.fids.claim(req, used, fid);
  await ready;
  return answer(f);
}

/** Linux open flags as a 9P2000 open mode. */
function openMode(flags: number): number {
  const access = flags & LinuxOpen.ACCMODE;
  if (access === 3) throw refuse(`bad open flags 0${flags.toString(8)}`, Errno.EINVAL);
  return access | (flags & LinuxOpen.TRUNC ? OTRUNC : 0);
}

async function lopen<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Tlopen">, used: Used<A>) {
  const r = await h.open(req, { type: "Topen", tag: m.tag, fid: m.fid, mode: openMode(m.flags) }, used);
  return { type: "Rlopen" as const, tag: m.tag, qid: r.qid, iounit: r.iounit };
}

async function lcreate<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Tlcreate">, used: Used<A>) {
  const perm = m.mode & 0o777;
  const r = await h.create(
    req,
    { type: "Tcreate", tag: m.tag, fid: m.fid, name: m.name, perm, mode: openMode(m.flags) },
    used,
  );
  return { type: "Rlcreate" as const, tag: m.tag, qid: r.qid, iounit: r.iounit };
}

async function getattr<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Tgetattr">, used: Used<A>) {
  const { stat } = await h.stat(req, { type: "Tstat", tag: m.tag, fid: m.fid }, used);
  return { type: "Rgetattr" as const, tag: m.tag, ...attributesOf(stat, m.requestMask, h.ids.idOf) };
}

async function setattr<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Tsetattr">, used: Used<A>) {
  const done = { type: "Rsetattr" as const, tag: m.tag };
  if (m.valid & UNMAPPABLE) throw refuse("owners cannot be changed by number", Errno.EPERM);
  // A tree without wstat has files whose size and times are its own: truncating one (as `echo x > FILE`
  // does, before writing) or touching it asks nothing of it.
  if (!h.fs.wstat) {
    if ((m.valid & ~DROPPABLE) === 0)
      return (await whenReady(h, req, m.fid, used, () => done)) as typeof done;
    throw refuse("wstat prohibited", Errno.EPERM);
  }
  const { f, ready } = h.fids.claim(req, used, m.fid);
  await ready;
  const stat = wstatOf(m, f.qid, Math.floor(Date.now() / 1000));
  // Under this request's own hold: the fid it claims again is released with the others when it ends.
  await h.wstat(req, { type: "Twstat", tag: m.tag, fid: m.fid, stat }, used);
  return done;
}

async function readdir<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Treaddir">, used: Used<A>) {
  const { f, ready } = h.fids.claim(req, used, m.fid);
  await ready;
  if (f.mode === null) throw refuse("directory not open", Errno.EBADF);
  if (!isDir(f)) throw refuse("not a directory", Errno.ENOTDIR);
  if (m.offset === 0n || !f.dirents) {
    const stats = await h.fs.readdir(call(req, f));
    f.dirents = stats.map((s, i) => ({
      qid: s.qid,
      offset: BigInt(i + 1),
      type: direntType(s.qid),
      name: s.name,
    }));
  }
  const count = Math.min(m.count, h.conn.msize - 11);
  const entries: Dirent[] = [];
  let size = 0;
  for (let i = Number(m.offset); i < f.dirents.length; i++) {
    const d = f.dirents[i]!;
    if (size + direntSize(d) > count) break;
    size += direntSize(d);
    entries.push(d);
  }
  if (entries.length === 0 && Number(m.offset) < f.dirents.length)
    throw refuse(`readdir count ${m.count} is too small for the next entry`, Errno.EINVAL);
  return { type: "Rreaddir" as const, tag: m.tag, entries };
}

async function xattrwalk<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Txattrwalk">, used: Used<A>) {
  const { f, ready } = h.fids.claim(req, used, m.fid);
  await ready;
  if (m.name !== "") throw refuse(`no extended attribute '${m.name}'`, Errno.ENODATA);
  // The list of a file's attributes, which is empty: a fid that reads nothing.
  const list = h.fids.reserve(m.newfid, () => new FidState<A>(m.newfid, f.uname, f.aname, f.qid, f.aux));
  list.xattr = true;
  list.mode = OREAD;
  if (!h.fids.install(req, list)) throw refuse("interrupted", Errno.EINTR);
  return { type: "Rxattrwalk" as const, tag: m.tag, size: 0n };
}

/**
 * Runs `work` on a fid of its own walked from directory `dir` to `name` (or, for `create`, still at the
 * directory), handing it back to the FileServer after.
 */
async function withChild<A, T>(
  h: PlainHandlers<A>,
  req: PendingRequest,
  dir: FidState<A>,
  name: string | undefined,
  work: (child: FidState<A>) => Promise<T>,
): Promise<T> {
  if (!isDir(dir)) throw refuse("not a directory", Errno.ENOTDIR);
  const child = new FidState<A>(dir.fid, dir.uname, dir.aname, dir.qid, dir.aux);
  child.pending = false;
  try {
    if (name !== undefined) {
      checkName(name);
      const qids = await h.fs.walk(call(req, dir, { newFid: child, names: [name] }));
      if (qids.length !== 1) throw refuse(`'${name}' file not found`, Errno.ENOENT);
      child.serverOwned = true;
      child.qid = qids[0]!;
    }
    return await work(child);
  } finally {
    h.fids.release(child);
  }
}

async function mkdir<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Tmkdir">, used: Used<A>) {
  const { f, ready } = h.fids.claim(req, used, m.dfid);
  await ready;
  checkName(m.name);
  const create = h.fs.create;
  if (!create) throw refuse("create prohibited", Errno.EPERM);
  const qid = await withChild(h, req, f, undefined, async (child) => {
    const made = await create.call(
      h.fs,
      call(req, child, { name: m.name, perm: DM.DIR | (m.mode & 0o777), mode: OREAD }),
    );
    child.serverOwned = true;
    child.qid = made.qid;
    child.mode = OREAD;
    await h.fs.close?.(call(req, child));
    return made.qid;
  });
  return { type: "Rmkdir" as const, tag: m.tag, qid };
}

async function unlinkat<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Tunlinkat">, used: Used<A>) {
  const { f, ready } = h.fids.claim(req, used, m.dirfid);
  await ready;
  await withChild(h, req, f, m.name, async (child) => {
    if (m.flags & AT_REMOVEDIR && !isDir(child))
      throw refuse(`'${m.name}' is not a directory`, Errno.ENOTDIR);
    if (!(m.flags & AT_REMOVEDIR) && isDir(child)) throw refuse(`'${m.name}' is a directory`, Errno.EISDIR);
    if (!h.fs.remove) throw refuse("remove prohibited", Errno.EPERM);
    await h.fs.remove(call(req, child));
  });
  return { type: "Runlinkat" as const, tag: m.tag };
}

/** Renames through wstat, which 9P2000 allows only within a directory: a move elsewhere is EXDEV. */
async function renameTo<A>(h: PlainHandlers<A>, req: PendingRequest, target: FidState<A>, name: string) {
  checkName(name);
  if (!h.fs.wstat) throw refuse("wstat prohibited", Errno.EPERM);
  const stat = dontTouchStat();
  stat.name = name;
  await h.fs.wstat(call(req, target, { stat }));
}

async function renameat<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Trenameat">, used: Used<A>) {
  const from = h.fids.claim(req, used, m.olddirfid);
  const to = h.fids.claim(req, used, m.newdirfid);
  await Promise.all([from.ready, to.ready]);
  if (from.f.qid.path !== to.f.qid.path)
    throw refuse("a file moves only within its directory here", Errno.EXDEV);
  await withChild(h, req, from.f, m.oldname, (child) => renameTo(h, req, child, m.newname));
  return { type: "Rrenameat" as const, tag: m.tag };
}

async function rename<A>(h: PlainHandlers<A>, req: PendingRequest, m: Of<"Trename">, used: Used<A>) {
  const file = h.fids.claim(req, used, m.fid);
  const dir = h.fids.claim(req, used, m.dfid);
  await Promise.all([file.ready, dir.ready]);
  const { name } = await h.fs.stat(call(req, file.f));
  // The file must be in `dfid` already: 9P2000 renames within a directory only.
  const same = await withChild(
    h,
    req,
    dir.f,
    name,
    async (child) => child.qid.path === file.f.qid.path,
  ).catch(() => false);
  if (!same) throw refuse("a file moves only within its directory here", Errno.EXDEV);
  await renameTo(h, req, file.f, m.name);
  return { type: "Rrename" as const, tag: m.tag };
}
