import { readsConsume } from "./consuming-reads.js";
import type { FileHandlers } from "./context.js";

/** Owner, group and permission bits of a node. Unset fields come from the tree's defaults. */
export interface Perm {
  /** Permission bits, e.g. 0o644. For directories the DMDIR bit is added for you. */
  mode?: number;
  owner?: string;
  group?: string;
}

/** Permission bits alone, or owner, group and bits. */
export type PermSpec = number | Perm;

export interface DirSpec {
  readonly kind: "dir";
  readonly name: string;
  readonly children: readonly NodeSpec[];
  readonly perm: Perm;
}

export interface FileSpec {
  readonly kind: "file";
  readonly name: string;
  // biome-ignore lint/suspicious/noExplicitAny: each file keeps its own private state type
  readonly handlers: FileHandlers<any>;
  readonly perm: Perm;
}

/** What a client creating or removing an entry of an `each` directory is. */
export interface ChangeContext {
  readonly uname: string;
  readonly signal: AbortSignal;
}

export interface EachOptions<T> extends Perm {
  /** The entry name of an item without declaring its node (default: the item if it is a string, else the
   * name of `child(item)`). */
  key?: (item: T) => string;
  /** Finds the item for an entry name quickly; without it, walks scan `list()`. */
  lookup?: (name: string) => T | undefined;
  /** Lets clients create entries (Tcreate): make the item named `name`, or throw. */
  create?: (name: string, ctx: ChangeContext & { perm: number }) => T | Promise<T>;
  /** Lets clients remove entries (Tremove): delete `item`, or throw. */
  remove?: (item: T, ctx: ChangeContext) => void | Promise<void>;
}

export interface EachSpec<T = unknown> {
  readonly kind: "each";
  readonly name: string;
  readonly list: () => Iterable<T>;
  readonly child: (item: T) => NodeSpec;
  readonly options: EachOptions<T>;
  readonly perm: Perm;
}

export interface AliasSpec {
  readonly kind: "alias";
  readonly name: string;
  /** A slash-separated path from the root of the tree, or a function giving one (undefined: absent). */
  readonly target: string | (() => string | undefined);
}

// biome-ignore lint/suspicious/noExplicitAny: a tree mixes collections of any item type
export type NodeSpec = DirSpec | FileSpec | EachSpec<any> | AliasSpec;

function checkName(name: string, what: string): void {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new TypeError(`${what} name '${name}' is not a valid file name`);
  }
}

function toPerm(perm: PermSpec | undefined): Perm {
  if (perm === undefined) return {};
  return typeof perm === "number" ? { mode: perm } : perm;
}

/** A directory of fixed children. The root of a tree is a `dir` too; its name is ignored (stat says "/"). */
export function dir(name: string, children: readonly NodeSpec[], perm?: PermSpec): DirSpec {
  if (name !== "/") checkName(name, "directory");
  const seen = new Set<string>();
  for (const c of children) {
    if (seen.has(c.name)) throw new TypeError(`directory '${name}' declares '${c.name}' twice`);
    seen.add(c.name);
  }
  return { kind: "dir", name, children, perm: toPerm(perm) };
}

/**
 * The mode of a file declared without one: readable by all if it has `read`, writable by its owner alone if
 * it has `write` (0644 for most writable files). A file whose reads take what they return (a `fifo`) is
 * its owner's alone (0600): anyone else reading it would take what was written for the owner.
 */
function defaultFileMode<S>(handlers: FileHandlers<S>): number {
  if (readsConsume(handlers)) return (handlers.read ? 0o400 : 0) | (handlers.write ? 0o200 : 0);
  return (handlers.read ? 0o444 : 0) | (handlers.write ? 0o200 : 0);
}

/**
 * A file whose behaviour is `handlers`. Without a mode, it is readable by all if it has `read` and writable
 * by its owner if it has `write` (a `fifo` is its owner's alone); give `perm` to let a group or others write.
 */
export function file<S>(name: string, handlers: FileHandlers<S>, perm?: PermSpec): FileSpec {
  checkName(name, "file");
  const defaults = defaultFileMode(handlers);
  return { kind: "file", name, handlers, perm: { mode: defaults, ...toPerm(perm) } };
}

/**
 * A directory whose entries come from a live collection: `list()` is consulted each time the directory is
 * listed (and walked, unless `lookup` is given), and `child(item)` declares the entry for an item — its name
 * is the entry's name. An item keeps its node (and qid) for as long as it stays in the collection.
 */
export function each<T>(
  name: string,
  list: () => Iterable<T>,
  child: (item: T) => NodeSpec,
  options: EachOptions<T> = {},
): EachSpec<T> {
  checkName(name, "directory");
  const { mode, owner, group } = options;
  // Creating and removing entries needs write permission on the directory: its owner has it by default.
  const perm: Perm = { mode: mode ?? (options.create || options.remove ? 0o755 : 0o555) };
  if (owner !== undefined) perm.owner = owner;
  if (group !== undefined) perm.group = group;
  return { kind: "each", name, list, child, options, perm };
}

/** Another name for a node elsewhere in the tree, resolved at each walk. */
export function alias(name: string, target: string | (() => string | undefined)): AliasSpec {
  checkName(name, "alias");
  return { kind: "alias", name, target };
}
