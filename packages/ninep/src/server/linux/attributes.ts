import { DM, QT } from "../../codec/constants.js";
import { DT_DIR, DT_REG, GetattrMask, S_IFDIR, S_IFREG, SetattrValid } from "../../codec/linux/constants.js";
import type { LinuxMessageOf } from "../../codec/linux/messages.js";
import type { Qid } from "../../codec/qid.js";
import { dontTouchStat } from "../../codec/stat.js";
import type { Stat } from "../../codec/types.js";

/** What Rgetattr can say of a 9P2000 file: the basic attributes, its generation and data version. */
const PROVIDED = GetattrMask.BASIC | GetattrMask.GEN | GetattrMask.DATA_VERSION;

type Attributes = Omit<LinuxMessageOf<"Rgetattr">, "type" | "tag">;

/**
 * A stat as Rgetattr's attributes: the mode gains its S_IFDIR or S_IFREG bits, owners become numbers
 * through `idOf`, a directory has two links and a file one, ctime is mtime, and the inode is the qid's path.
 * Only the requested attributes are marked valid.
 */
export function attributesOf(stat: Stat, mask: bigint, idOf: (name: string) => number): Attributes {
  const dir = (stat.mode & DM.DIR) !== 0;
  const size = stat.length;
  const mtime = BigInt(stat.mtime);
  return {
    valid: mask & PROVIDED,
    qid: stat.qid,
    mode: (dir ? S_IFDIR : S_IFREG) | (stat.mode & 0o777),
    uid: idOf(stat.uid),
    gid: idOf(stat.gid),
    nlink: dir ? 2n : 1n,
    rdev: 0n,
    size,
    blksize: 4096n,
    blocks: (size + 511n) / 512n,
    atimeSec: BigInt(stat.atime),
    atimeNsec: 0n,
    mtimeSec: mtime,
    mtimeNsec: 0n,
    ctimeSec: mtime,
    ctimeNsec: 0n,
    btimeSec: 0n,
    btimeNsec: 0n,
    gen: 0n,
    dataVersion: BigInt(stat.qid.version),
  };
}

/** The DT_* type of a directory entry. */
export const direntType = (qid: Qid): number => ((qid.type & QT.DIR) !== 0 ? DT_DIR : DT_REG);

/** Setattr changes a 9P2000 stat cannot carry: owners are names there, not numbers. */
export const UNMAPPABLE = SetattrValid.UID | SetattrValid.GID;

/** Changes that may be dropped when the tree cannot make them: times, and a size (a synthetic file's "truncate"). */
export const DROPPABLE = SetattrValid.SIZE | SetattrValid.ATIME | SetattrValid.MTIME | SetattrValid.CTIME;

/** A Tsetattr as a Twstat's stat: "don't touch" everywhere but the fields it sets. */
export function wstatOf(m: LinuxMessageOf<"Tsetattr">, qid: Qid, now: number): Stat {
  const stat = dontTouchStat();
  const dir = (qid.type & QT.DIR) !== 0;
  if (m.valid & SetattrValid.MODE) stat.mode = (dir ? DM.DIR : 0) | (m.mode & 0o777);
  if (m.valid & SetattrValid.SIZE) stat.length = m.size;
  if (m.valid & SetattrValid.ATIME)
    stat.atime = m.valid & SetattrValid.ATIME_SET ? Number(m.atimeSec & 0xffffffffn) : now;
  if (m.valid & SetattrValid.MTIME)
    stat.mtime = m.valid & SetattrValid.MTIME_SET ? Number(m.mtimeSec & 0xffffffffn) : now;
  return stat;
}
