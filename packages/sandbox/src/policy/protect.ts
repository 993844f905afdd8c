import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { ProtectedPathError, type ProtectedRelation } from "../errors.js";
import { PATH_LISTS } from "./path-lists.js";
import type { SandboxPolicy } from "./policy.js";

/**
 * Where a path really is: its real path when it exists; otherwise its nearest existing ancestor's real path
 * with the rest appended, so a file not yet created under a symlinked directory still compares right.
 */
function realPath(path: string): string {
  const absolute = resolve(path);
  try {
    // One system call, where the promise form takes a trip through the thread pool for each path.
    return realpathSync.native(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(realPath(parent), basename(absolute));
  }
}

const within = (inner: string, outer: string) =>
  inner.startsWith(outer.endsWith(sep) ? outer : `${outer}${sep}`);

function relation(granted: string, guarded: string): ProtectedRelation | undefined {
  if (granted === guarded) return "is";
  if (within(guarded, granted)) return "holds";
  // Landlock grants whole trees, so a grant inside a protected directory exposes part of it.
  if (within(granted, guarded)) return "lies inside";
  return undefined;
}

/** Paths a command must not reach at all, and paths it may read but never write. */
export interface Protected {
  unreachable: readonly string[];
  unwritable: readonly string[];
}

const WRITING: ReadonlySet<string> = new Set(["rw", "rwx"]);

/**
 * Refuses an expanded policy that grants a protected path, a directory holding one, or a path inside one —
 * any grant for an unreachable path, a writing grant for an unwritable one — with a ProtectedPathError
 * naming the first such grant. Landlock follows symlinks to the real file, so real paths are compared.
 */
export function refuseProtected(policy: SandboxPolicy, guard: Protected): void {
  const real = (paths: readonly string[]) => paths.map((path) => ({ path, real: realPath(path) }));
  const unreachable = real(guard.unreachable);
  const unwritable = real(guard.unwritable);
  for (const list of PATH_LISTS) {
    const guarded = WRITING.has(list) ? [...unreachable, ...unwritable] : unreachable;
    if (guarded.length === 0) continue;
    for (const grant of real(policy.filesystem[list])) {
      for (const g of guarded) {
        const how = relation(grant.real, g.real);
        if (how) throw new ProtectedPathError(grant.path, `filesystem.${list}`, g.path, how, grant.real);
      }
    }
  }
}
