import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { type GlobOptions, glob } from "tinyglobby";
import { IgnoreRules } from "./ignore-rules.js";
import { ToolError } from "./tool-io.js";

/** Version-control data: never searched. */
const VERSION_CONTROL = new Set([".git", ".hg", ".svn"]);
/** Installed dependencies: searched only when ignore rules are off. */
const DEPENDENCIES = new Set(["node_modules"]);

export interface FindOptions {
  /** Also find what `.gitignore` and `.ignore` files exclude, and what is in `node_modules`. */
  noIgnore?: boolean;
  /** The directory entries the walk reads at most (default 200,000), so `/` cannot eat the memory. */
  maxEntries?: number;
}

const MAX_ENTRIES = 200_000;

/** The note a tool adds when the walk stopped at the default maxEntries. */
export const STOPPED_WALK = `the search stopped after reading ${MAX_ENTRIES} directory entries`;

export interface FoundFiles {
  files: string[];
  /** The walk stopped at maxEntries: there may be more. */
  truncated: boolean;
}

/** Whether the walk keeps an entry of `dir`. */
type Keep = (dir: string, entry: Dirent) => boolean | Promise<boolean>;

/**
 * The files under `root` (absolute) whose paths relative to it match the glob `pattern`, sorted. Dot files
 * count; version-control directories never do, and unless `noIgnore`, neither do `node_modules` nor what
 * `.gitignore` and `.ignore` files exclude (see IgnoreRules). Symbolic links are neither listed nor followed,
 * as ripgrep does by default, so the walk stays inside the tree and cannot loop.
 */
export async function findFiles(
  root: string,
  pattern: string,
  options: FindOptions = {},
): Promise<FoundFiles> {
  if (isAbsolute(pattern) || pattern.split("/").includes(".."))
    throw new ToolError(`the pattern ${pattern} leaves the directory: give the directory as path instead`);
  const keep = options.noIgnore ? keepAllButVersionControl : await keepUnignored(root);
  const budget = { left: options.maxEntries ?? MAX_ENTRIES };
  const files = await glob(pattern, {
    cwd: root,
    dot: true,
    // Only files are listed: a pattern that names a directory matches nothing.
    expandDirectories: false,
    followSymbolicLinks: false,
    fs: { readdir: readdirKeeping(keep, budget) },
  });
  return { files: files.sort(), truncated: budget.left < 0 };
}

const keepAllButVersionControl: Keep = (_dir, entry) =>
  !(entry.isDirectory() && VERSION_CONTROL.has(entry.name));

async function keepUnignored(root: string): Promise<Keep> {
  const rules = await IgnoreRules.under(root);
  return async (dir, entry) => {
    const isDirectory = entry.isDirectory();
    if (isDirectory && (VERSION_CONTROL.has(entry.name) || DEPENDENCIES.has(entry.name))) return false;
    return !(await rules.ignores(join(dir, entry.name), isDirectory));
  };
}

/**
 * A readdir for tinyglobby's `fs` option that leaves out the entries `keep` refuses, so an ignored
 * directory is never entered (tinyglobby has no hook for that, and filtering its results afterwards would
 * still walk `node_modules`). Its walker, fdir, calls it as `readdir(path, { withFileTypes: true }, callback)`,
 * the one form implemented here, hence the cast to the overloaded type.
 */
function readdirKeeping(keep: Keep, budget: { left: number }): NonNullable<GlobOptions["fs"]>["readdir"] {
  const readdirKept = (
    path: string,
    _options: unknown,
    callback: (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void,
  ) => {
    const dir = resolve(path);
    if (budget.left < 0) {
      callback(null, []);
      return;
    }
    readdir(dir, { withFileTypes: true })
      .then(async (entries) => {
        budget.left -= entries.length;
        if (budget.left < 0) return [];
        const kept = await Promise.all(entries.map((entry) => keep(dir, entry)));
        return entries.filter((_, i) => kept[i]);
      })
      .then(
        (entries) => callback(null, entries),
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
  };
  return readdirKept as unknown as NonNullable<GlobOptions["fs"]>["readdir"];
}
