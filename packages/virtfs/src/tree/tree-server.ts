import { userInfo } from "node:os";
import {
  type AttachRequest,
  accessForOpenMode,
  type CreateRequest,
  type CreateResult,
  Errno,
  type Fid,
  type FileServer,
  type GroupMembership,
  NinepError,
  type OpenRequest,
  ORCLOSE,
  OTRUNC,
  PERM_EXEC,
  PERM_READ,
  PERM_WRITE,
  permits,
  type Qid,
  type ReadRequest,
  type RequestContext,
  type Stat,
  sameNameGroups,
  type WalkRequest,
  type WriteRequest,
} from "@ollie/ninep";
import { toBuffer } from "../patterns/bytes.js";
import type { DirSpec, EachSpec } from "../spec/node-spec.js";
import { HandlerContext, StatAsked } from "./handler-context.js";
import { held, type TreeFid } from "./tree-fid.js";
import type { TreeOptions } from "./tree-options.js";
import type { VirtualTree } from "./virtual-tree.js";
import { now, type TreeContext, VNode } from "./vnode.js";

const ACCESS_NAMES: Record<number, string> = {
  [PERM_READ]: "read",
  [PERM_WRITE]: "write",
  [PERM_READ | PERM_WRITE]: "read-write",
  [PERM_EXEC]: "exec",
};

/**
 * A declared tree, served: the FileServer that @ollie/ninep's NinepServer runs. Walks, opens, creates and
 * removes are checked against each node's owner, group and mode for the attaching uname. What users see of
 * it is `VirtualTree`; the rest is how its nodes reach it.
 */
export class TreeServer implements FileServer<TreeFid>, TreeContext, VirtualTree {
  readonly root: VNode;
  readonly owner: string;
  readonly group: string;
  private readonly inGroup: GroupMembership;
  private lastPath = 0;

  constructor(
    rootSpec: DirSpec,
    private readonly options: TreeOptions = {},
  ) {
    this.owner = options.owner ?? userInfo().username;
    this.group = options.group ?? this.owner;
    this.inGroup = options.inGroup ?? sameNameGroups;
    this.root = new VNode(this, rootSpec, null, this.nextPath(), "/", false);
  }

  nextPath(): number {
    return this.lastPath++;
  }

  prune(path: string): void {
    const node = this.resolve(path);
    node?.prune();
    node?.settle();
  }

  resolve(path: string, hops = 0): VNode | undefined {
    let node: VNode | undefined = this.root;
    for (const name of path.split("/")) {
      if (name === "" || name === ".") continue;
      node = name === ".." ? (node.parent ?? node) : node.child(name, hops);
      if (!node) return undefined;
    }
    return node;
  }

  private check(node: VNode, uname: string, want: number): void {
    if (!this.allows(node, uname, want)) throw new NinepError("permission denied", { errno: Errno.EACCES });
  }

  /** Whether `uname` may have `want` on `node`; a refusal is reported to `onDenied`. */
  private allows(node: VNode, uname: string, want: number): boolean {
    if (permits(node.owned, uname, want, this.inGroup)) return true;
    this.options.onDenied?.({ uname, path: node.location, access: ACCESS_NAMES[want] ?? String(want) });
    return false;
  }

  private live(fid: Fid<TreeFid>): VNode {
    const node = fid.aux.node;
    if (node.removed) throw new NinepError("file has been removed", { errno: Errno.ENOENT });
    return node;
  }

  attach({ fid, aname }: AttachRequest<TreeFid>): Qid {
    if (aname !== "" && aname !== "/") {
      throw new NinepError(`no tree named '${aname}': this server has one, attached as '' or '/'`, {
        errno: Errno.ENOENT,
      });
    }
    fid.aux = held(this.root);
    return this.root.qid();
  }

  walk({ fid, newFid, names }: WalkRequest<TreeFid>): Qid[] {
    const qids: Qid[] = [];
    const walked: VNode[] = [];
    try {
      this.walkFrom(fid.aux.node, fid.uname, names, qids, walked);
      // The engine installs the new fid only when every name was walked.
      if (qids.length === names.length) newFid.aux = held(walked.at(-1) ?? fid.aux.node);
    } finally {
      // The fid holds what it reached; the rest of the way (and all of it, for a walk that stopped short)
      // need not keep its declarations.
      for (const n of walked) n.settle();
    }
    return qids;
  }

  private walkFrom(start: VNode, uname: string, names: string[], qids: Qid[], walked: VNode[]): void {
    let node = start;
    for (const [i, name] of names.entries()) {
      const stop = (why: string, errno: number) => {
        if (i === 0) throw new NinepError(why, { errno });
      };
      if (!node.isDir || node.removed) {
        stop("walk in non-directory", Errno.ENOTDIR);
        break;
      }
      if (!this.allows(node, uname, PERM_EXEC)) {
        stop("permission denied", Errno.EACCES);
        break;
      }
      const next = name === ".." ? (node.parent ?? node) : node.child(name);
      if (!next) {
        stop(`'${name}' file not found`, Errno.ENOENT);
        break;
      }
      node = next;
      walked.push(node);
      qids.push(node.qid());
    }
  }

  async open(req: OpenRequest<TreeFid>): Promise<{ qid: Qid }> {
    const node = this.live(req.fid);
    this.check(node, req.fid.uname, accessForOpenMode(req.mode));
    if (req.mode & ORCLOSE) this.checkRemovable(node, req.fid.uname);
    return this.openNode(req);
  }

  /** Runs the file's `open` handler and records the open on the fid (permissions already checked). */
  private async openNode(req: OpenRequest<TreeFid>): Promise<{ qid: Qid }> {
    const { fid, mode } = req;
    const node = fid.aux.node;
    let state: unknown;
    if (node.spec.kind === "file" && node.spec.handlers.open) {
      state = await node.spec.handlers.open({
        uname: fid.uname,
        mode,
        truncate: (mode & OTRUNC) !== 0,
        get signal() {
          return req.signal;
        },
      });
    }
    fid.aux.open = { state, mode, closed: false };
    node.atime = now();
    return { qid: node.qid() };
  }

  /** The context a file handler gets for a request on an open fid. */
  private context(req: RequestContext<TreeFid>, offset = 0, count = 0, data?: Buffer): HandlerContext {
    return new HandlerContext(req, req.fid.aux.open!, offset, count, data);
  }

  private handlers(fid: Fid<TreeFid>) {
    const spec = fid.aux.node.spec;
    if (spec.kind !== "file") throw new NinepError("is a directory", { errno: Errno.EISDIR });
    return spec.handlers;
  }

  read(req: ReadRequest<TreeFid>): Uint8Array | Promise<Uint8Array> {
    const h = this.handlers(req.fid);
    if (!h.read) throw new NinepError("file cannot be read", { errno: Errno.EINVAL });
    const data = h.read(this.context(req, Number(req.offset), req.count));
    // Not awaited: a read that blocks (a wait file's) holds a promise reaction while it waits, not a frame.
    return data instanceof Promise ? data.then(toBuffer) : toBuffer(data);
  }

  readdir(req: RequestContext<TreeFid>): Stat[] | Promise<Stat[]> {
    const node = this.live(req.fid);
    node.atime = now();
    const entries = node.list();
    const asked = new StatAsked(req, undefined);
    const stats = entries.map(({ name, node: child }) => child.stat(asked, name));
    const settle = () => {
      for (const { node: child } of entries) child.settle();
    };
    if (!stats.some((s) => s instanceof Promise)) {
      settle();
      return stats as Stat[];
    }
    return Promise.all(stats).finally(settle);
  }

  async write(req: WriteRequest<TreeFid>): Promise<number> {
    const node = this.live(req.fid);
    const h = this.handlers(req.fid);
    if (!h.write) throw new NinepError("file cannot be written", { errno: Errno.EINVAL });
    const n = await h.write(this.context(req, Number(req.offset), 0, toBuffer(req.data)));
    node.version = (node.version + 1) >>> 0;
    node.mtime = now();
    return n ?? req.data.length;
  }

  async close(req: RequestContext<TreeFid>): Promise<void> {
    await this.finish(req);
  }

  /** Runs a file's `close` handler once per open, whether the fid was clunked or dropped. */
  private async finish(req: RequestContext<TreeFid>): Promise<void> {
    const open = req.fid.aux.open;
    if (!open || open.closed) return;
    open.closed = true;
    const spec = req.fid.aux.node.spec;
    if (spec.kind === "file" && spec.handlers.close) await spec.handlers.close(this.context(req));
  }

  clunk(fid: Fid<TreeFid>): void {
    if (!fid.aux) return;
    const open = fid.aux.open;
    if (open && !open.closed) {
      const gone = AbortSignal.abort(new DOMException("client went away", "AbortError"));
      const onAbort = (listener: (reason: unknown) => void) => {
        listener(gone.reason);
        return () => {};
      };
      this.finish({ fid, signal: gone, onAbort }).catch((err: unknown) =>
        this.options.onError?.(err instanceof Error ? err : new Error(String(err))),
      );
    }
    fid.aux.node.drop();
  }

  private checkRemovable(node: VNode, uname: string): EachSpec {
    const parent = node.parent;
    if (parent?.spec.kind !== "each" || !parent.spec.options.remove) {
      throw new NinepError("remove prohibited", { errno: Errno.EPERM });
    }
    this.check(parent, uname, PERM_WRITE);
    return parent.spec;
  }

  async remove(req: RequestContext<TreeFid>): Promise<void> {
    const node = this.live(req.fid);
    const spec = this.checkRemovable(node, req.fid.uname);
    await spec.options.remove!(node.item, { uname: req.fid.uname, signal: req.signal });
    node.removed = true;
    node.parent!.forget(node.name);
  }

  async create(req: CreateRequest<TreeFid>): Promise<CreateResult> {
    const { fid, name, perm, mode } = req;
    const dirNode = this.live(fid);
    if (dirNode.spec.kind !== "each" || !dirNode.spec.options.create)
      throw new NinepError("create prohibited", { errno: Errno.EPERM });
    this.check(dirNode, fid.uname, PERM_WRITE);
    if (dirNode.child(name)) throw new NinepError(`'${name}' already exists`, { errno: Errno.EEXIST });
    await dirNode.spec.options.create(name, { uname: fid.uname, perm, signal: req.signal });
    const node = dirNode.child(name);
    if (!node) {
      throw new NinepError(`'${name}' was created but does not appear in '${dirNode.name}'`, {
        errno: Errno.EIO,
      });
    }
    fid.aux = held(node);
    dirNode.drop();
    // As in create(5), the creator gets the mode it asked for, whatever the new file's permissions say.
    const opened = await this.openNode({
      fid,
      mode,
      get signal() {
        return req.signal;
      },
      onAbort: (listener) => req.onAbort(listener),
    });
    return { qid: opened.qid };
  }

  /**
   * The stat of an open fid tells the length of what that open reads (its snapshot, for a text file). The
   * engine runs a stat sent with an open of the same fid, as a client reading a whole file sends them,
   * after the open.
   */
  stat(req: RequestContext<TreeFid>): Stat | Promise<Stat> {
    const open = req.fid.aux.open;
    return req.fid.aux.node.stat(new StatAsked(req, open && !open.closed ? open.state : undefined));
  }
}
