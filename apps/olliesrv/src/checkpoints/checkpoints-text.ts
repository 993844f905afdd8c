import type { ChangedFile, Checkpoint } from "./types.js";

/** What the `checkpoints` file says above the list: the directory, and who else records it. */
export interface CheckpointsHeading {
  directory: string;
  /** The other sessions in the same directory: they record and rewind the same files. */
  sharedWith: readonly string[];
  /** Why checkpoints are not kept, when they are not. */
  unavailable?: string | undefined;
}

/**
 * A path as the file writes it: as it is, or — holding a control character, a quote or a backslash, which
 * could make a name look like lines of the file — as a JSON string.
 */
export function quotePath(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  return /[\u0000-\u001f\u007f"\\]/.test(path) ? JSON.stringify(path) : path;
}

const counts = (f: Pick<ChangedFile, "added" | "deleted">) =>
  f.added === null ? "binary" : `+${f.added} -${f.deleted}`;

/**
 * An agent's `checkpoints` file: `directory PATH`, `shared with SESSION…` when other sessions record the same
 * directory, `unavailable REASON` when none are kept; then a line per checkpoint — number, `turn T`, time,
 * kind, a summary of the files changed since the one before — each followed by a line per file (a tab, the
 * change, its counts, the path) and per file left out (`noted`, why, the path). A path is quoted when it
 * must be (see quotePath).
 */
export function checkpointsText(heading: CheckpointsHeading, checkpoints: readonly Checkpoint[]): string {
  const lines = [`directory ${quotePath(heading.directory)}`];
  if (heading.sharedWith.length > 0)
    lines.push(
      `shared with ${heading.sharedWith.join(" ")}: their turns record, and their rewinds change, the same files`,
    );
  if (heading.unavailable) lines.push(`unavailable ${heading.unavailable}`);
  for (const c of checkpoints) {
    const added = c.files.reduce((n, f) => n + (f.added ?? 0), 0);
    const deleted = c.files.reduce((n, f) => n + (f.deleted ?? 0), 0);
    const kind = c.kind === "before rewind" ? `before rewind to ${c.rewindTo}` : c.kind;
    lines.push(
      [
        c.n,
        c.turn === undefined ? "-" : `turn ${c.turn}`,
        c.time,
        kind,
        `${c.files.length} file${c.files.length === 1 ? "" : "s"} +${added} -${deleted}`,
      ].join("\t"),
    );
    for (const f of c.files) lines.push(`\t${f.change}\t${counts(f)}\t${quotePath(f.path)}`);
    for (const f of c.noted)
      lines.push(
        `\tnoted\t${f.reason}${f.size === undefined ? "" : ` ${f.size} bytes`}\t${quotePath(f.path)}`,
      );
  }
  return `${lines.join("\n")}\n`;
}
