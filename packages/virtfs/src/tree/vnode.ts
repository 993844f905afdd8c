import { DM, type Qid, QT, type Stat } from "@ollie/ninep";
import type { StatContext } from "../spec/context.js";
import type { AliasSpec, DirSpec, EachSpec, FileSpec, NodeSpec } from "../spec/node-spec.js";

/** What nodes need from the tree they belong to. */
export interface TreeContext {
  nextPath(): number;
  readonly owner: string;
  readonly group: string;
  /** The node at a slash-separated path from the root, following aliases; undefined if absent. */
  resolve(path: string, hops: number): VNode | undefined;
}

type RealSpec = DirSpec | FileSpec | EachSpec;

export const now = () => Math.floor(Date.now() / 1000);

/** Aliases followed in one resolution before giving up (a cycle, most likely). */
const MAX_ALIAS_HOPS = 8;

/**
 * A node of a built tree: one instance of a declared file or directory, with its own qid path for as long
 * as it exists. Children of `dir`s are made one by one, when first reached; entries of `each` directories
 * are made per item and kept while the item stays in the collection.
 *
 * A node keeps what a client can observe of it (qid path, version, times) for its whole life, but not its
 * declaration: below an `each` entry, declarations are made by the collection's `child(item)`, with the
 * closures they hold, and a node lets go of its declaration once no fid refers to it or below it
 * (`release`). The next walk, listing or open declares it again, from its parent's declaration.
 */
export class VNode {
  /** Bumped by every accepted write, when the handlers keep no version of their own. */
  version = 0;
  mtime = now();
  atime = this.mtime;
  removed = false;
  /** Fids referring to this node or to a node below it. */
  refs = 0;
  /** The children made so far: a `dir`'s by name, an `each`'s entries by name (with their items). */
  private children: Map<string, VNode> | undefined;
  private declared: RealSpec | undefined;

  constructor(
    readonly tree: TreeContext,
    spec: RealSpec,
    /** null for the root. */
    readonly parent: VNode | null,
    /** The qid path. */
    readonly path: number,
    readonly entryName: string,
    /**
     * Whether the declaration was made by a collection's `child(item)`, at this node or above it: only
     * those are let go of (the others are held by the declaration the tree was built from anyway).
     */
    readonly derived: boolean,
    /** The collection item an `each` entry stands for. */
    readonly item?: unknown,
  ) {
    this.declared = spec;
  }

  /** The node's declaration, made again from its parent's if it was released. */
  get spec(): RealSpec {
    if (this.declared) return this.declared;
    const parent = this.parent!;
    const within = parent.spec;
    const spec =
      within.kind === "each"
        ? within.child(this.item)
        : within.kind === "dir"
          ? within.children.find((c) => c.name === this.entryName)
          : undefined;
    if (!spec || spec.kind === "alias" || spec.name !== this.entryName) {
      throw new Error(
        `'${this.location}' is no longer declared the same way: a declaration must give the same children each time`,
      );
    }
    this.declared = spec;
    return spec;
  }

  get name(): string {
    return this.parent ? this.entryName : "/";
  }

  /** The slash-separated path from the root, as people name the file. */
  get location(): string {
    const names: string[] = [];
    for (let n: VNode | null = this; n?.parent; n = n.parent) names.push(n.entryName);
    return `/${names.reverse().join("/")}`;
  }

  get isDir(): boolean {
    return this.spec.kind !== "file";
  }

  /** Owner, group and mode (DMDIR included for directories), as permission checks and stat need them. */
  get owned(): { uid: string; gid: string; mode: number } {
    const spec = this.spec;
    const p = spec.perm;
    const isDir = spec.kind !== "file";
    const mode = (p.mode ?? (isDir ? 0o555 : 0o444)) & 0o777;
    return {
      uid: p.owner ?? this.tree.owner,
      gid: p.group ?? this.tree.group,
      mode: isDir ? (DM.DIR | mode) >>> 0 : mode,
    };
  }

  qid(): Qid {
    const spec = this.spec;
    const handlers = spec.kind === "file" ? spec.handlers : undefined;
    const version = handlers?.version ? handlers.version() >>> 0 : this.version;
    return { type: spec.kind === "file" ? QT.FILE : QT.DIR, version, path: BigInt(this.path) };
  }

  /** The node's stat entry, its length as the file's `length` tells it to `asked` (who asks, and how). */
  stat(asked: StatContext, name = this.name): Stat | Promise<Stat> {
    const spec = this.spec;
    const length = spec.kind === "file" ? spec.handlers.length?.(asked) : undefined;
    if (length instanceof Promise) return length.then((n) => this.statEntry(name, n));
    return this.statEntry(name, length ?? 0);
  }

  private statEntry(name: string, length: number): Stat {
    const { uid, gid, mode } = this.owned;
    return {
      type: 0,
      dev: 0,
      qid: this.qid(),
      mode,
      atime: this.atime,
      mtime: this.mtime,
      length: BigInt(length),
      name,
      uid,
      gid,
      muid: uid,
    };
  }

  /** The child named `name`, following an alias; undefined if there is none. */
  child(name: string, hops = 0): VNode | undefined {
    const spec = this.spec;
    if (spec.kind === "dir") {
      const made = this.children?.get(name);
      if (made) return made;
      const c = spec.children.find((s) => s.name === name);
      return c === undefined ? undefined : this.fixed(c, hops);
    }
    if (spec.kind === "each") return this.entry(spec, name, hops);
    return undefined;
  }

  /** The current entries, in declaration or collection order, with the names they are listed under. */
  list(): Array<{ name: string; node: VNode }> {
    const spec = this.spec;
    const out: Array<{ name: string; node: VNode }> = [];
    if (spec.kind === "dir") {
      for (const c of spec.children) {
        const node = this.children?.get(c.name) ?? this.fixed(c, 0);
        if (node) out.push({ name: c.name, node });
      }
      return out;
    }
    if (spec.kind === "each") return this.listEntries(spec);
    return out;
  }

  /** Counts a fid on this node (and below each of its ancestors). */
  hold(): void {
    for (let n: VNode | null = this; n; n = n.parent) n.refs++;
  }

  /** Drops a fid `hold` counted; a part of the tree no fid refers into any more lets go of its declarations. */
  drop(): void {
    for (let n: VNode | null = this; n; n = n.parent) n.refs--;
    this.settle();
  }

  /**
   * Lets go of the declarations of the highest part of the tree above (and including) this node that no
   * fid refers into and that collection entries declared. Called after a walk, listing or drop: a part no
   * fid refers into holds no declarations between requests.
   */
  settle(): void {
    let top: VNode | undefined;
    for (let n: VNode | null = this; n && n.refs === 0; n = n.parent) if (n.derived) top = n;
    top?.release();
  }

  /** Lets go of the declarations of this node and the nodes made below it. */
  release(): void {
    this.declared = undefined;
    if (this.children) for (const c of this.children.values()) c.release();
  }

  /** Drops the cached entries of an `each` directory whose items are no longer in its collection. */
  prune(): void {
    const spec = this.spec;
    if (spec.kind !== "each" || !this.children?.size) return;
    const live = new Set<string>();
    for (const item of spec.list()) live.add(keyOf(spec, item));
    for (const name of this.children.keys()) if (!live.has(name)) this.children.delete(name);
  }

  /** Forgets the entry an `each` item had, after the item was removed. */
  forget(name: string): void {
    this.children?.delete(name);
  }

  /** The node for a declared child of a `dir` (made on first use), or an alias's target. */
  private fixed(c: NodeSpec, hops: number): VNode | undefined {
    if (c.kind === "alias") return this.follow(c, hops);
    const node = new VNode(this.tree, c, this, this.tree.nextPath(), c.name, this.derived);
    this.remember(c.name, node);
    return node;
  }

  private remember(name: string, node: VNode): void {
    if (!this.children) this.children = new Map();
    this.children.set(name, node);
  }

  private follow(a: AliasSpec, hops: number): VNode | undefined {
    if (hops >= MAX_ALIAS_HOPS) return undefined;
    const target = typeof a.target === "string" ? a.target : a.target();
    return target === undefined ? undefined : this.tree.resolve(target, hops + 1);
  }

  private entry(spec: EachSpec, name: string, hops: number): VNode | undefined {
    let item: unknown;
    let found = false;
    if (spec.options.lookup) {
      item = spec.options.lookup(name);
      found = item !== undefined;
    } else {
      for (const candidate of spec.list()) {
        if (keyOf(spec, candidate) === name) {
          item = candidate;
          found = true;
          break;
        }
      }
    }
    if (!found) {
      this.children?.delete(name);
      return undefined;
    }
    return this.nodeFor(spec, name, item, hops);
  }

  private nodeFor(each: EachSpec, name: string, item: unknown, hops: number): VNode | undefined {
    const cached = this.children?.get(name);
    if (cached && cached.item === item) return cached;
    const spec = each.child(item);
    if (spec.name !== name) {
      throw new Error(`entry '${name}' of '${each.name}' was declared with the name '${spec.name}'`);
    }
    if (spec.kind === "alias") return this.follow(spec, hops);
    const node = new VNode(this.tree, spec, this, this.tree.nextPath(), name, true, item);
    this.remember(name, node);
    return node;
  }

  private listEntries(spec: EachSpec): Array<{ name: string; node: VNode }> {
    const out: Array<{ name: string; node: VNode }> = [];
    const seen = new Set<string>();
    for (const item of spec.list()) {
      const name = keyOf(spec, item);
      if (seen.has(name)) continue;
      seen.add(name);
      const node = this.nodeFor(spec, name, item, 0);
      if (node) out.push({ name, node });
    }
    if (this.children)
      for (const name of this.children.keys()) if (!seen.has(name)) this.children.delete(name);
    return out;
  }
}

function keyOf(spec: EachSpec, item: unknown): string {
  if (spec.options.key) return spec.options.key(item);
  return typeof item === "string" ? item : spec.child(item).name;
}
