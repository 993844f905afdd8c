import { DM, type Qid, QT, type Stat } from "@ollie/ninep";
import type { AliasSpec, DirSpec, EachSpec, FileSpec, NodeSpec } from "../spec/node-spec.js";

/** What nodes need from the tree they belong to. */
export interface TreeContext {
  nextPath(): bigint;
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
 * as it exists. Children of `dir`s are made once, when first reached; entries of `each` directories are made
 * per item and kept while the item stays in the collection.
 */
export class VNode {
  /** Bumped by every accepted write, when the handlers keep no version of their own. */
  version = 0;
  mtime = now();
  atime = this.mtime;
  removed = false;
  private fixedChildren: Map<string, VNode | AliasSpec> | undefined;
  private readonly entries = new Map<string, { item: unknown; node: VNode }>();

  constructor(
    readonly tree: TreeContext,
    readonly spec: RealSpec,
    /** null for the root. */
    readonly parent: VNode | null,
    readonly path: bigint,
    /** The collection item an `each` entry stands for. */
    readonly item?: unknown,
  ) {}

  get name(): string {
    return this.parent ? this.spec.name : "/";
  }

  /** The slash-separated path from the root, as people name the file. */
  get location(): string {
    const names: string[] = [];
    for (let n: VNode | null = this; n?.parent; n = n.parent) names.push(n.spec.name);
    return `/${names.reverse().join("/")}`;
  }

  get isDir(): boolean {
    return this.spec.kind !== "file";
  }

  /** Owner, group and mode (DMDIR included for directories), as permission checks and stat need them. */
  get owned(): { uid: string; gid: string; mode: number } {
    const p = this.spec.perm;
    const mode = (p.mode ?? (this.isDir ? 0o555 : 0o444)) & 0o777;
    return {
      uid: p.owner ?? this.tree.owner,
      gid: p.group ?? this.tree.group,
      mode: this.isDir ? (DM.DIR | mode) >>> 0 : mode,
    };
  }

  qid(): Qid {
    const handlers = this.spec.kind === "file" ? this.spec.handlers : undefined;
    const version = handlers?.version ? handlers.version() >>> 0 : this.version;
    return { type: this.isDir ? QT.DIR : QT.FILE, version, path: this.path };
  }

  stat(name = this.name): Stat {
    const { uid, gid, mode } = this.owned;
    const length = this.spec.kind === "file" ? (this.spec.handlers.length?.() ?? 0) : 0;
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
    if (this.spec.kind === "dir") {
      const c = this.fixed().get(name);
      return c instanceof VNode || c === undefined ? c : this.follow(c, hops);
    }
    if (this.spec.kind === "each") return this.entry(name, hops);
    return undefined;
  }

  /** The current entries, in declaration or collection order, with the names they are listed under. */
  list(): Array<{ name: string; node: VNode }> {
    if (this.spec.kind === "dir") {
      const out: Array<{ name: string; node: VNode }> = [];
      for (const [name, c] of this.fixed()) {
        const node = c instanceof VNode ? c : this.follow(c, 0);
        if (node) out.push({ name, node });
      }
      return out;
    }
    if (this.spec.kind === "each") return this.listEntries();
    return [];
  }

  /** Drops the cached entries of an `each` directory whose items are no longer in its collection. */
  prune(): void {
    if (this.spec.kind !== "each" || this.entries.size === 0) return;
    const spec = this.spec;
    const live = new Set<string>();
    for (const item of spec.list()) live.add(this.keyOf(spec, item));
    for (const name of this.entries.keys()) if (!live.has(name)) this.entries.delete(name);
  }

  /** Forgets the entry an `each` item had, after the item was removed. */
  forget(name: string): void {
    this.entries.delete(name);
  }

  private fixed(): Map<string, VNode | AliasSpec> {
    if (!this.fixedChildren) {
      this.fixedChildren = new Map();
      for (const c of (this.spec as DirSpec).children) {
        this.fixedChildren.set(
          c.name,
          c.kind === "alias" ? c : new VNode(this.tree, c, this, this.tree.nextPath()),
        );
      }
    }
    return this.fixedChildren;
  }

  private follow(a: AliasSpec, hops: number): VNode | undefined {
    if (hops >= MAX_ALIAS_HOPS) return undefined;
    const target = typeof a.target === "string" ? a.target : a.target();
    return target === undefined ? undefined : this.tree.resolve(target, hops + 1);
  }

  private keyOf(spec: EachSpec, item: unknown): string {
    if (spec.options.key) return spec.options.key(item);
    return typeof item === "string" ? item : spec.child(item).name;
  }

  private entry(name: string, hops: number): VNode | undefined {
    const spec = this.spec as EachSpec;
    let item: unknown;
    let found = false;
    if (spec.options.lookup) {
      item = spec.options.lookup(name);
      found = item !== undefined;
    } else {
      for (const candidate of spec.list()) {
        if (this.keyOf(spec, candidate) === name) {
          item = candidate;
          found = true;
          break;
        }
      }
    }
    if (!found) {
      this.entries.delete(name);
      return undefined;
    }
    return this.nodeFor(name, item, hops);
  }

  private nodeFor(name: string, item: unknown, hops: number): VNode | undefined {
    const cached = this.entries.get(name);
    if (cached && cached.item === item) return cached.node;
    const spec = (this.spec as EachSpec).child(item);
    if (spec.name !== name) {
      throw new Error(`entry '${name}' of '${this.spec.name}' was declared with the name '${spec.name}'`);
    }
    if (spec.kind === "alias") return this.follow(spec as NodeSpec as AliasSpec, hops);
    const node = new VNode(this.tree, spec, this, this.tree.nextPath(), item);
    this.entries.set(name, { item, node });
    return node;
  }

  private listEntries(): Array<{ name: string; node: VNode }> {
    const spec = this.spec as EachSpec;
    const out: Array<{ name: string; node: VNode }> = [];
    const seen = new Set<string>();
    for (const item of spec.list()) {
      const name = this.keyOf(spec, item);
      if (seen.has(name)) continue;
      seen.add(name);
      const node = this.nodeFor(name, item, 0);
      if (node) out.push({ name, node });
    }
    for (const name of this.entries.keys()) if (!seen.has(name)) this.entries.delete(name);
    return out;
  }
}
