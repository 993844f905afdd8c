import { DM, ORCLOSE, OTRUNC } from "../codec/constants.js";
import { GetattrMask, LinuxOpen, S_IFDIR, S_IFMT, S_IFREG, SetattrValid } from "../codec/linux/constants.js";
import type { LinuxMessageOf } from "../codec/linux/messages.js";
import type { Qid, Rcreate, Ropen, Stat } from "../codec/types.js";

type Send = <N extends "Tlopen" | "Tlcreate" | "Tmkdir" | "Tgetattr" | "Tsetattr" | "Treaddir">(
  request: Omit<LinuxMessageOf<N>, "tag">,
  signal?: AbortSignal,
) => Promise<LinuxMessageOf<`R${N extends `T${infer S}` ? S : never}`>>;

/**
 * The fid operations of a 9P2000.L client, in 9P2000's terms (open modes, stats) so that files and file
 * systems work the same in either dialect: Topen is Tlopen, Tcreate is Tlcreate (or Tmkdir, then a walk and
 * an open), Tstat is Tgetattr, Twstat is Tsetattr, and directories are listed with Treaddir.
 */
export class LinuxOps {
  constructor(
    private readonly send: Send,
    private readonly walk: (fid: number, names: string[], signal?: AbortSignal) => Promise<unknown>,
  ) {}

  async open(fid: number, mode: number, signal?: AbortSignal): Promise<Ropen> {
    const r = await this.send({ type: "Tlopen", fid, flags: linuxFlags(mode) }, signal);
    return { type: "Ropen", tag: r.tag, qid: r.qid, iounit: r.iounit };
  }

  async create(
    fid: number,
    name: string,
    perm: number,
    mode: number,
    signal?: AbortSignal,
  ): Promise<Rcreate> {
    if ((perm & DM.DIR) === 0) {
      const flags = linuxFlags(mode) | LinuxOpen.CREAT | LinuxOpen.EXCL;
      const r = await this.send(
        { type: "Tlcreate", fid, name, flags, mode: S_IFREG | (perm & 0o777), gid: 0 },
        signal,
      );
      return { type: "Rcreate", tag: r.tag, qid: r.qid, iounit: r.iounit };
    }
    // A directory is made beside the fid, which then moves onto it and opens it, as Tcreate would leave it.
    await this.send({ type: "Tmkdir", dfid: fid, name, mode: S_IFDIR | (perm & 0o777), gid: 0 }, signal);
    await this.walk(fid, [name], signal);
    const r = await this.send({ type: "Tlopen", fid, flags: linuxFlags(mode) | LinuxOpen.DIRECTORY }, signal);
    return { type: "Rcreate", tag: r.tag, qid: r.qid, iounit: r.iounit };
  }

  /** The file's attributes as a stat; 9P2000.L has no names in them, so `name` is empty. */
  async stat(fid: number, signal?: AbortSignal): Promise<Stat> {
    return statOf("", await this.send({ type: "Tgetattr", fid, requestMask: GetattrMask.ALL }, signal));
  }

  /** A Twstat's changes of mode, length and times; a name or owner cannot be set through a fid alone here. */
  async wstat(fid: number, stat: Stat, signal?: AbortSignal): Promise<void> {
    if (stat.name !== "" || stat.uid !== "" || stat.gid !== "")
      throw new Error("renaming or changing owners is not offered over 9P2000.L by this client");
    let valid = 0;
    if (stat.mode !== 0xffffffff) valid |= SetattrValid.MODE;
    if (stat.length !== 0xffffffffffffffffn) valid |= SetattrValid.SIZE;
    if (stat.atime !== 0xffffffff) valid |= SetattrValid.ATIME | SetattrValid.ATIME_SET;
    if (stat.mtime !== 0xffffffff) valid |= SetattrValid.MTIME | SetattrValid.MTIME_SET;
    await this.send(
      {
        type: "Tsetattr",
        fid,
        valid,
        mode: stat.mode & 0o777,
        uid: 0,
        gid: 0,
        size: valid & SetattrValid.SIZE ? stat.length : 0n,
        atimeSec: BigInt(valid & SetattrValid.ATIME ? stat.atime : 0),
        atimeNsec: 0n,
        mtimeSec: BigInt(valid & SetattrValid.MTIME ? stat.mtime : 0),
        mtimeNsec: 0n,
      },
      signal,
    );
  }

  /** The names and qids of an open directory's entries, in as many Treaddirs as it takes. */
  async readdir(
    fid: number,
    count: number,
    signal?: AbortSignal,
  ): Promise<Array<{ name: string; qid: Qid }>> {
    const entries: Array<{ name: string; qid: Qid }> = [];
    let offset = 0n;
    for (;;) {
      const r = await this.send({ type: "Treaddir", fid, offset, count }, signal);
      if (r.entries.length === 0) return entries;
      for (const e of r.entries)
        if (e.name !== "." && e.name !== "..") entries.push({ name: e.name, qid: e.qid });
      offset = r.entries.at(-1)!.offset;
    }
  }
}

/** A 9P2000 open mode as Linux open flags; ORCLOSE has no counterpart. */
function linuxFlags(mode: number): number {
  if (mode & ORCLOSE) throw new Error("ORCLOSE has no counterpart in 9P2000.L");
  return (mode & 3) === 3 ? LinuxOpen.RDONLY : (mode & 3) | (mode & OTRUNC ? LinuxOpen.TRUNC : 0);
}

/** Rgetattr as a 9P2000 stat: S_IFDIR becomes DM.DIR, owners are their numbers. */
export function statOf(name: string, a: LinuxMessageOf<"Rgetattr">): Stat {
  const dir = (a.mode & S_IFMT) === S_IFDIR;
  return {
    type: 0,
    dev: 0,
    qid: a.qid,
    mode: (dir ? DM.DIR : 0) | (a.mode & 0o777),
    atime: Number(a.atimeSec),
    mtime: Number(a.mtimeSec),
    length: a.size,
    name,
    uid: String(a.uid),
    gid: String(a.gid),
    muid: "",
  };
}
