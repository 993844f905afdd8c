import { readdir } from "node:fs/promises";
import { PathLooker } from "./path-looker.js";
import { displayPath, fsPath, type RawPath } from "./raw-paths.js";
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
  // What the target noted, or is under what it noted (a nested repository's `sub/`).
  const noted = new Set(notedByTarget.map((file) => file.path.replace(/\/$/, "")));
  const isNoted = (path: string) => {
    for (let end = path.length; end > 0; end = path.lastIndexOf("/", end - 1))
      if (noted.has(path.slice(0, end))) return true;
    return false;
  };
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
  readonly #looker: PathLooker;

  constructor(
    private readonly directory: string,
    /** Paths the current tree holds and the target does not: git removes them. */
    private readonly dropped: Set<RawPath>,
  ) {
    this.#looker = new PathLooker(directory);
  }

  /** Whether writing `raw` would replace or write through something no checkpoint holds. */
  async blocks(raw: RawPath): Promise<boolean> {
    const leading = await this.#looker.firstNotDirectory(raw);
    if (leading) {
      // Nothing there, or a tracked file or link where the target has a directory: git removes it.
      if (leading.kind === "absent" || this.#droppedOrAbove(leading.path)) return false;
      return true;
    }
    const kind = await this.#looker.kind(raw);
    if (kind === "absent") return false;
    if (kind === "other") return true;
    return this.#holdsUntracked(raw);
  }

  /** Whether `raw` or a leading path of it is one git removes (then all below it is gone too). */
  #droppedOrAbove(raw: RawPath): boolean {
    for (let end = raw.indexOf("/"); end > 0; end = raw.indexOf("/", end + 1))
      if (this.dropped.has(raw.slice(0, end))) return true;
    return this.dropped.has(raw);
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
