import { access, constants } from "node:fs/promises";
import { type GitPlace, runGit } from "./git.js";
import { PathLooker } from "./path-looker.js";
import { displayPath, fsPath, type RawPath, splitNul } from "./raw-paths.js";
import type { CheckpointLimits, NotedFile } from "./types.js";

/** What the shadow index must take in for it to hold the directory as it is now. */
export interface WorktreeScan {
  /** Paths to add, update or drop as the directory has them (`git update-index --add --remove`). */
  stage: RawPath[];
  /** Paths to drop from the index although they exist: noted, so that no stale copy stays in the tree. */
  forceRemove: RawPath[];
  /** What is not stored, and why. */
  noted: NotedFile[];
  /** A `.gitignore` changed: files the index holds may be ignored now. */
  ignoreRulesChanged: boolean;
}

/** One path `git status` reports: new to the index (`??`), or changed or gone from what it holds. */
interface Candidate {
  raw: RawPath;
  tracked: boolean;
}

/** A name git will not store whatever its case: a `.git` component. */
const DOT_GIT = /(^|\/)\.git(\/|$)/i;

/**
 * What differs between the directory and the shadow index, through one `git status`: it compares every
 * tracked file's stat data with the index's (reading only the files whose stat changed), walks the
 * directory for new files, skipping what `.gitignore` files ignore (and `.git` directories), and writes the
 * refreshed stat data back to the index, so that the next scan reads only what changed again. The paths
 * it reports are then looked at (lstat, never followed) and sorted into what to stage and what to note
 * under the limits.
 */
export async function scanWorktree(place: GitPlace, limits: CheckpointLimits): Promise<WorktreeScan> {
  const output = await runGit(place, [
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--no-renames",
    "--ignore-submodules=none",
  ]);
  const scan: WorktreeScan = { stage: [], forceRemove: [], noted: [], ignoreRulesChanged: false };
  const candidates: Candidate[] = [];
  for (const entry of splitNul(output)) {
    const worktree = entry[1];
    const raw = entry.slice(3);
    if (entry.startsWith("??")) {
      // A directory git reports whole is a repository of its own: its files are its business.
      if (raw.endsWith("/")) scan.noted.push({ path: displayPath(raw), reason: "nested-repository" });
      else candidates.push({ raw, tracked: false });
    } else if (worktree === "M" || worktree === "T" || worktree === "D")
      candidates.push({ raw, tracked: true });
  }
  const looker = new PathLooker(place.workTree);
  const looks = await Promise.all(candidates.map(({ raw }) => looker.look(raw)));
  let bytes = 0;
  candidates.forEach(({ raw, tracked }, i) => {
    const st = looks[i]!;
    if (raw === ".gitignore" || raw.endsWith("/.gitignore")) scan.ignoreRulesChanged = true;
    const note = (reason: NotedFile["reason"], size?: number) => {
      scan.noted.push({ path: displayPath(raw), reason, ...(size !== undefined && { size }) });
      if (tracked) scan.forceRemove.push(raw);
    };
    if (DOT_GIT.test(raw)) note("unstorable-name");
    else if (st === "beyond") {
      // Its directory was replaced: git will not look past a link, so the index drops it unlooked at.
      if (tracked) scan.forceRemove.push(raw);
    } else if (st === "denied") note("unreadable");
    else if (st === "absent" || st.isDirectory()) {
      // Gone, or a directory now: the index lets go of the file it had there.
      if (tracked) scan.stage.push(raw);
    } else if (st.isSymbolicLink()) scan.stage.push(raw);
    else if (!st.isFile()) note("special-file");
    else if (st.size > limits.maxFileBytes) note("file-cap", st.size);
    else if (bytes + st.size > limits.maxCheckpointBytes) note("checkpoint-cap", st.size);
    else {
      bytes += st.size;
      scan.stage.push(raw);
    }
  });
  scan.noted.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return scan;
}

/**
 * The staged regular files this process may not read, moved from `scan.stage` to its noted files (git
 * fails the whole update on one of them). Resolves true when there were any.
 */
export async function noteUnreadable(directory: string, scan: WorktreeScan): Promise<boolean> {
  const looker = new PathLooker(directory);
  const readable = await Promise.all(
    scan.stage.map(async (raw) => {
      // A link is read as a link: where it points does not matter.
      const st = await looker.look(raw);
      if (typeof st === "string" || !st.isFile()) return true;
      return access(fsPath(directory, raw), constants.R_OK).then(
        () => true,
        (error: NodeJS.ErrnoException) => error.code !== "EACCES" && error.code !== "EPERM",
      );
    }),
  );
  const unreadable = scan.stage.filter((_, i) => !readable[i]);
  if (unreadable.length === 0) return false;
  scan.stage = scan.stage.filter((_, i) => readable[i]);
  for (const raw of unreadable) {
    scan.noted.push({ path: displayPath(raw), reason: "unreadable" });
    scan.forceRemove.push(raw);
  }
  return true;
}
