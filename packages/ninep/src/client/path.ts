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
