import type { Stat } from "../codec/types.js";

/** Splits a slash-separated path into walk names, dropping empty and "." elements. */
export function splitPath(path: string): string[] {
  return path.split("/").filter((name) => name !== "" && name !== ".");
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
