import { userInfo } from "node:os";
import { DM, ORCLOSE, OTRUNC } from "../codec/constants.js";
import { Errno } from "../codec/linux/constants.js";
import type { Qid, Stat } from "../codec/types.js";
import type { CreateResult, Fid, FileServer } from "../server/file-server.js";
import { refuse } from "../server/ninep-error.js";
import {
  accessForOpenMode,
  type GroupMembership,
  PERM_EXEC,
  PERM_WRITE,
  permits,
  sameNameGroups,
} from "../server/permission.js";

export interface RamfsOptions {
  /** Owner and group of the root directory (default: the user running the process). */
  owner?: string;
  /** Permission bits of the root directory (default 0777: anyone may create in it). */
  rootPerm?: number;
  /** Largest file, in bytes (default 1 GiB). */
  maxFileSize?: number;
  inGroup?: GroupMembership;
}

/** A file or directory of a Ramfs. */
interface RamNode {
  qid: Qid;
  name: string;
  mode: number;
  uid: string;
  gid: string;
  muid: string;
  atime: number;
  mtime: number;
  /** File content occupies data[0, length); the rest is spare capacity. */
  data: Buffer;
  length: number;
  children: Map<string, RamNode> | null;
  parent: RamNode;
  removed: boolean;
  exclusiveOpen: boolean;
}

const now = () => Math.floor(Date.now() / 1000);

/**
 * An in-memory file tree served as a FileServer: files and directories can be created, written, read,
 * renamed and removed, with Unix-style permission checks against the attaching uname. It is the example
 * FileServer behind `ninep ramfs` and a convenient server for client tests.
 */
export class Ramfs implements FileServer<RamNode> {
  private nextPath = 0n;
  private readonly root: RamNode;
  private readonly maxFileSize: number;
  private readonly inGroup: GroupMembership;

  constructor(options: RamfsOptions = {}) {
    const owner = options.owner ?? userInfo().username;
    this.maxFileSize = options.maxFileSize ?? 1024 ** 3;
    this.inGroup = options.inGroup ?? sameNameGroups;
    this.root = this.newNode("/", DM.DIR | (options.rootPerm ?? 0o777), owner, owner);
    this.root.parent = this.root;
  }

  private newNode(name: string, mode: number, uid: string, gid: string, parent?: RamNode): RamNode {
    const t = now();
    const node: RamNode = {
      qid: { type: mode >>> 24, version: 0, path: this.nextPath++ },
      name,
      mode,
      uid,
      gid,
      muid: uid,
      atime: t,
      mtime: t,
      data: Buffer.alloc(0),
      length: 0,
      children: mode & DM.DIR ? new Map() : null,
      parent: parent as RamNode,
      removed: false,
      exclusiveOpen: false,
    };
    return node;
  }

  private check(node: RamNode, uname: string, want: number): void {
    if (!permits(node, uname, want, this.inGroup)) throw refuse("permission denied", Errno.EACCES);
  }

  private live(node: RamNode): RamNode {
    if (node.removed) throw refuse("file has been removed", Errno.ENOENT);
    return node;
  }

  attach({ fid, aname }: { fid: Fid<RamNode>; aname: string }): Qid {
    if (aname !== "" && aname !== "/") {
      throw refuse(`no tree named '${aname}': this server has one, attached as '' or '/'`, Errno.ENOENT);
    }
    fid.aux = this.root;
    return this.root.qid;
  }

  walk({ fid, newFid, names }: { fid: Fid<RamNode>; newFid: Fid<RamNode>; names: string[] }): Qid[] {
    let node = fid.aux;
    const qids: Qid[] = [];
    for (const [i, name] of names.entries()) {
      const fail = (why: string, errno: number) => {
        if (i === 0) throw refuse(why, errno);
      };
      if (!node.children || node.removed) {
        fail("walk in non-directory", Errno.ENOTDIR);
        break;
      }
      if (!permits(node, fid.uname, PERM_EXEC, this.inGroup)) {
        fail("permission denied", Errno.EACCES);
        break;
      }
      const next = name === ".." ? node.parent : node.children.get(name);
      if (!next) {
        fail(`'${name}' file not found`, Errno.ENOENT);
        break;
      }
      node = next;
      qids.push(node.qid);
    }
    if (qids.length === names.length) newFid.aux = node;
    return qids;
  }

  open({ fid, mode }: { fid: Fid<RamNode>; mode: number }): { qid: Qid } {
    const node = this.live(fid.aux);
    this.check(node, fid.uname, accessForOpenMode(mode));
    if (mode & ORCLOSE) this.check(node.parent, fid.uname, PERM_WRITE);
    if (node.mode & DM.EXCL) {
      if (node.exclusiveOpen) throw refuse("file is open exclusively", Errno.EBUSY);
      node.exclusiveOpen = true;
    }
    if (mode & OTRUNC && !(node.mode & DM.APPEND)) {
      node.length = 0;
      this.modified(node, fid.uname);
    }
    return { qid: node.qid };
  }

  create({ fid, name, perm }: { fid: Fid<RamNode>; name: string; perm: number }): CreateResult {
    const dir = this.live(fid.aux);
    this.check(dir, fid.uname, PERM_WRITE);
    if (dir.children!.has(name)) throw refuse(`'${name}' already exists`, Errno.EEXIST);
    const mode = perm & DM.DIR ? perm & (~0o777 | (dir.mode & 0o777)) : perm & (~0o666 | (dir.mode & 0o666));
    const node = this.newNode(name, mode >>> 0, fid.uname, dir.gid, dir);
    dir.children!.set(name, node);
    this.modified(dir, fid.uname);
    if (node.mode & DM.EXCL) node.exclusiveOpen = true;
    fid.aux = node;
    return { qid: node.qid };
  }

  read({ fid, offset, count }: { fid: Fid<RamNode>; offset: bigint; count: number }): Uint8Array {
    const node = fid.aux;
    node.atime = now();
    if (offset >= BigInt(node.length)) return Buffer.alloc(0);
    const start = Number(offset);
    return node.data.subarray(start, Math.min(node.length, start + count));
  }

  readdir({ fid }: { fid: Fid<RamNode> }): Stat[] {
    return [...fid.aux.children!.values()].map((n) => this.statOf(n));
  }

  write({ fid, offset, data }: { fid: Fid<RamNode>; offset: bigint; data: Uint8Array }): number {
    const node = this.live(fid.aux);
    const start = node.mode & DM.APPEND ? node.length : Number(offset);
    const end = start + data.length;
    if (offset > BigInt(this.maxFileSize) || end > this.maxFileSize) {
      throw refuse(`file would exceed the ${this.maxFileSize}-byte limit`, Errno.EFBIG);
    }
    this.ensureCapacity(node, end);
    if (start > node.length) node.data.fill(0, node.length, start);
    node.data.set(data, start);
    node.length = Math.max(node.length, end);
    this.modified(node, fid.uname);
    return data.length;
  }

  private ensureCapacity(node: RamNode, size: number): void {
    if (size <= node.data.length) return;
    const grown = Buffer.allocUnsafe(Math.min(this.maxFileSize, Math.max(size, node.data.length * 2, 64)));
    node.data.copy(grown, 0, 0, node.length);
    node.data = grown;
  }

  private modified(node: RamNode, uname: string): void {
    node.qid.version = (node.qid.version + 1) >>> 0;
    node.mtime = now();
    node.muid = uname;
  }

  remove({ fid }: { fid: Fid<RamNode> }): void {
    const node = this.live(fid.aux);
    if (node === this.root) throw refuse("cannot remove the root", Errno.EBUSY);
    this.check(node.parent, fid.uname, PERM_WRITE);
    if (node.children && node.children.size > 0) throw refuse("directory not empty", Errno.ENOTEMPTY);
    node.parent.children!.delete(node.name);
    this.modified(node.parent, fid.uname);
    node.removed = true;
  }

  stat({ fid }: { fid: Fid<RamNode> }): Stat {
    return this.statOf(fid.aux);
  }

  private statOf(n: RamNode): Stat {
    return {
      type: 0,
      dev: 0,
      qid: { ...n.qid },
      mode: n.mode,
      atime: n.atime,
      mtime: n.mtime,
      length: n.children ? 0n : BigInt(n.length),
      name: n.name,
      uid: n.uid,
      gid: n.gid,
      muid: n.muid,
    };
  }

  /** Applies every requested change or none: all are checked before any is made. */
  wstat({ fid, stat }: { fid: Fid<RamNode>; stat: Stat }): void {
    const node = this.live(fid.aux);
    const uname = fid.uname;
    const changes: Array<() => void> = [];
    if (stat.name !== "" && stat.name !== node.name) {
      if (node === this.root) throw refuse("cannot rename the root", Errno.EBUSY);
      this.check(node.parent, uname, PERM_WRITE);
      if (node.parent.children!.has(stat.name)) throw refuse(`'${stat.name}' already exists`, Errno.EEXIST);
      changes.push(() => {
        node.parent.children!.delete(node.name);
        node.name = stat.name;
        node.parent.children!.set(node.name, node);
      });
    }
    if (stat.length !== 0xffffffffffffffffn) {
      if (node.children) {
        if (stat.length !== 0n) throw refuse("cannot set the length of a directory", Errno.EISDIR);
      } else {
        this.check(node, uname, PERM_WRITE);
        if (stat.length > BigInt(this.maxFileSize))
          throw refuse("length exceeds the file size limit", Errno.EFBIG);
        const length = Number(stat.length);
        changes.push(() => {
          this.ensureCapacity(node, length);
          if (length > node.length) node.data.fill(0, node.length, length);
          node.length = length;
          this.modified(node, uname);
        });
      }
    }
    const ownerOnly = (what: string) => {
      if (uname !== node.uid) throw refuse(`only the owner may change ${what}`, Errno.EPERM);
    };
    if (stat.mode !== 0xffffffff) {
      ownerOnly("the mode");
      changes.push(() => {
        node.mode = stat.mode >>> 0;
        node.qid.type = node.mode >>> 24;
      });
    }
    if (stat.mtime !== 0xffffffff) {
      ownerOnly("the modification time");
      changes.push(() => {
        node.mtime = stat.mtime;
      });
    }
    if (stat.atime !== 0xffffffff) {
      ownerOnly("the access time");
      changes.push(() => {
        node.atime = stat.atime;
      });
    }
    if (stat.gid !== "" && stat.gid !== node.gid) {
      ownerOnly("the group");
      changes.push(() => {
        node.gid = stat.gid;
      });
    }
    if (stat.uid !== "" && stat.uid !== node.uid) throw refuse("wstat cannot change the owner", Errno.EPERM);
    for (const apply of changes) apply();
  }

  clunk(fid: Fid<RamNode>): void {
    if (fid.mode !== null && fid.aux.mode & DM.EXCL) fid.aux.exclusiveOpen = false;
  }
}
