import { readdir } from "node:fs/promises";
import { displayPath, fsPath, lstatOrMissing, type RawPath } from "./raw-paths.js";
import { changedFile, type TreeChange } from "./tree-diff.js";
import type { ChangedFile, NotedFile } from "./types.js";

/** The object id git reads as "no entry" in `update-index --index-info`. */
const NO_OBJECT = "0".repeat(40);

/**
 * How to take the directory from the current checkpoint to the target one without touching what no
 * checkpoint holds. `indexInfo` (for `git update-index -z --index-info` on an index read from the target)
 * turns the target's tree into the one to check out; empty when the target's tree serves as it is.
 */
export interface RewindPlan {
  files: ChangedFile[];
  untouched: string[];
  indexInfo: string[];
}

/**
 * Sorts the changes from the current tree to the target's into those a rewind makes and those it must not:
 *
 * - a path the target adds where the directory holds something the current tree does not track (an ignored
 *   or noted file, a nested repository, a directory with such things in it) stays as it is — git would
 *   overwrite it or delete it — and so does one under a leading path that is such a file or a symbolic
 *   link (a link planted where a directory was, pointing anywhere);
 * - a path the target noted (so did not store) that the current tree holds stays as it is: the target had
 *   something there, and it is not known what.
 *
 * Everything else — tracked files changed, removed, restored, a tracked link or file replaced by the
 * directory the target has — git does, and git removes a symbolic link in the way rather than write
 * through it.
 */
export async function planRewind(
  directory: string,
  changes: TreeChange[],
  notedByTarget: NotedFile[],
): Promise<RewindPlan> {
  const dropped = new Set<RawPath>();
  for (const change of changes) if (change.status === "D") dropped.add(change.raw);
  const noted = notedByTarget.map((file) => file.path);
  const isNoted = (path: string) =>
    noted.some((n) => (n.endsWith("/") ? path.startsWith(n) : path === n || path.startsWith(`${n}/`)));
  const occupied = new OccupiedPaths(directory, dropped);

  const plan: RewindPlan = { files: [], untouched: [], indexInfo: [] };
  const kept: string[] = [];
  for (const change of changes) {
    const path = displayPath(change.raw);
    if (change.status === "D" && isNoted(path)) {
      plan.untouched.push(path);
      kept.push(`${change.oldMode} ${change.oldObject}\t${change.raw}`);
    } else if (change.status === "A" && (await occupied.blocks(change.raw))) {
      plan.untouched.push(path);
      plan.indexInfo.push(`0 ${NO_OBJECT}\t${change.raw}`);
    } else plan.files.push(changedFile(change));
  }
  // Entries leave before others come: a path kept may be where the target has a directory.
  plan.indexInfo.push(...kept);
  return plan;
}

/** What the directory holds at a path that the current tree does not account for. */
class OccupiedPaths {
  readonly #leading = new Map<RawPath, Promise<"absent" | "directory" | "other">>();

  constructor(
    private readonly directory: string,
    /** Paths the current tree holds and the target does not: git removes them. */
    private readonly dropped: Set<RawPath>,
  ) {}

  /** Whether writing `raw` would replace or write through something no checkpoint holds. */
  async blocks(raw: RawPath): Promise<boolean> {
    const parts = raw.split("/");
    for (let i = 1; i < parts.length; i++) {
      const leading = parts.slice(0, i).join("/");
      // A tracked file or link where the target has a directory: git removes it, and all below is new.
      if (this.dropped.has(leading)) return false;
      let known = this.#leading.get(leading);
      if (!known) {
        known = this.#leadingState(leading);
        this.#leading.set(leading, known);
      }
      const state = await known;
      if (state === "absent") return false;
      if (state === "other") return true;
    }
    const st = await lstatOrMissing(fsPath(this.directory, raw));
    if (st === undefined) return false;
    if (!st.isDirectory()) return true;
    return this.#holdsUntracked(raw);
  }

  async #leadingState(raw: RawPath): Promise<"absent" | "directory" | "other"> {
    const st = await lstatOrMissing(fsPath(this.directory, raw));
    return st === undefined ? "absent" : st.isDirectory() ? "directory" : "other";
  }

  /** Whether the directory at `raw` holds anything but tracked files the rewind removes. */
  async #holdsUntracked(raw: RawPath): Promise<boolean> {
    const entries = await readdir(fsPath(this.directory, raw), { withFileTypes: true, encoding: "buffer" });
    for (const entry of entries) {
      const path = `${raw}/${entry.name.toString("latin1")}`;
      if (entry.isDirectory() ? await this.#holdsUntracked(path) : !this.dropped.has(path)) return true;
    }
    return false;
  }
}
