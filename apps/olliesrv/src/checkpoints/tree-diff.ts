import { type GitPlace, runGit } from "./git.js";
import { displayPath, type RawPath, splitNul } from "./raw-paths.js";
import type { ChangedFile } from "./types.js";

/** One path that differs between two trees: both sides' mode and object, and the line counts. */
export interface TreeChange {
  raw: RawPath;
  status: "A" | "D" | "M" | "T";
  oldMode: string;
  newMode: string;
  oldObject: string;
  newObject: string;
  added: number | null;
  deleted: number | null;
}

const CHANGE_NAMES = { A: "added", D: "deleted", M: "modified", T: "type changed" } as const;

/** A change as a checkpoint's list shows it. */
export function changedFile(change: TreeChange): ChangedFile {
  return {
    path: displayPath(change.raw),
    change: CHANGE_NAMES[change.status],
    added: change.added,
    deleted: change.deleted,
  };
}

/**
 * Parses `git diff-tree -r -z --raw --numstat`: every path's raw line (`:OLDMODE NEWMODE OLD NEW STATUS`,
 * then the path), then every path's numstat (`ADDED<TAB>DELETED<TAB>PATH`, `-` for a binary file), in the
 * same order.
 */
export function parseTreeDiff(output: Uint8Array): TreeChange[] {
  const fields = splitNul(output);
  const changes: TreeChange[] = [];
  let i = 0;
  for (; i < fields.length && fields[i]!.startsWith(":"); i += 2) {
    const [oldMode, newMode, oldObject, newObject, status] = fields[i]!.slice(1).split(" ");
    if (status !== "A" && status !== "D" && status !== "M" && status !== "T")
      throw new Error(`unexpected diff status ${status} for ${fields[i + 1]}`);
    changes.push({
      raw: fields[i + 1]!,
      status,
      oldMode: oldMode!,
      newMode: newMode!,
      oldObject: oldObject!,
      newObject: newObject!,
      added: null,
      deleted: null,
    });
  }
  for (const change of changes) {
    const stat = fields[i++];
    const match = stat === undefined ? null : /^(-|\d+)\t(-|\d+)\t/.exec(stat);
    if (!match || stat!.slice(match[0].length) !== change.raw)
      throw new Error(`the numstat of ${displayPath(change.raw)} is missing`);
    change.added = match[1] === "-" ? null : Number(match[1]);
    change.deleted = match[2] === "-" ? null : Number(match[2]);
  }
  return changes;
}

/** How tree `from` differs from tree `to`, path by path. */
export async function diffTrees(place: GitPlace, from: string, to: string): Promise<TreeChange[]> {
  if (from === to) return [];
  const output = await runGit(place, [
    "diff-tree",
    "-r",
    "-z",
    "--no-renames",
    "--raw",
    "--numstat",
    from,
    to,
  ]);
  return parseTreeDiff(output);
}
