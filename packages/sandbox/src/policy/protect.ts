import { realpath } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import { ProtectedPathError, type ProtectedRelation } from "../errors.js";
import { PATH_LISTS, type SandboxPolicy } from "./policy.js";

/**
 * Where a path really is: its real path when it exists; otherwise its nearest existing ancestor's real path
 * with the rest appended, so a file not yet created under a symlinked directory still compares right.
 */
async function realPath(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await realpath(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(await realPath(parent), basename(absolute));
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

/**
 * Refuses an expanded policy that grants a protected path, a directory holding one, or a path inside one,
 * with a ProtectedPathError naming the first such grant. Landlock follows symlinks to the real file, so real
 * paths are compared.
 */
export async function refuseProtected(policy: SandboxPolicy, protect: readonly string[]): Promise<void> {
  if (protect.length === 0) return;
  const guarded = await Promise.all(protect.map(async (path) => ({ path, real: await realPath(path) })));
  for (const list of PATH_LISTS) {
    const grants = await Promise.all(
      policy.filesystem[list].map(async (path) => ({ path, real: await realPath(path) })),
    );
    for (const grant of grants) {
      for (const g of guarded) {
        const how = relation(grant.real, g.real);
        if (how) throw new ProtectedPathError(grant.path, `filesystem.${list}`, g.path, how, grant.real);
      }
    }
  }
}
