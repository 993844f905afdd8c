/** A key path as the user writes it: `filesystem.rw[2]`, `hooks.preTurn`. */
export function keyPath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");
}
