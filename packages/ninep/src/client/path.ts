import type { Stat } from "../codec/types.js";

/**
 * The walk names of a slash-separated path from the tree's root, cleaned lexically as Plan 9's cleanname
 * does: empty and "." elements are dropped, and ".." takes away the name before it — at the root it stays
 * there. So "/sub/.." is the root and "../x" is "x": a path never leaves its tree, and ".." is never sent.
 */
export function splitPath(path: string): string[] {
  const names: string[] = [];
  for (const name of path.split("/")) {
    if (name === "..") names.pop();
    else if (name !== "" && name !== ".") names.push(name);
  }
  return names;
}

/** The names of a path's parent and its last element; the root has no last element. */
export function splitParent(path: string): { parent: string[]; name: string | undefined } {
  const names = splitPath(path);
  const name = names.pop();
  return { parent: names, name };
}

/** A stat with its name: 9P2000.L's attributes have none, so the path's last element (or "/") stands in. */
export function named(stat: Stat, path: string): Stat {
  return stat.name !== "" ? stat : { ...stat, name: splitParent(path).name ?? "/" };
}
