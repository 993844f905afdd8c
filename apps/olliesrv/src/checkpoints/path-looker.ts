import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { fsPath, type RawPath } from "./raw-paths.js";

/** What a path of the directory is: nothing, a real directory, or something else (a file, a link…). */
export type PathKind = "absent" | "directory" | "other";

/**
 * Looks at paths of a directory the way git does, without following a link on the way: a path whose
 * leading directories are not all real directories — one of them a symbolic link, say, to anywhere — is
 * not in the directory at all. Each leading directory is looked at once (lstat) per PathLooker.
 */
export class PathLooker {
  readonly #kinds = new Map<RawPath, Promise<PathKind>>();

  constructor(readonly directory: string) {}

  /** What `raw` is, looking at it alone (its leading directories taken as they come). */
  kind(raw: RawPath): Promise<PathKind> {
    let kind = this.#kinds.get(raw);
    if (!kind) {
      kind = lstatOrMissing(fsPath(this.directory, raw)).then((st) =>
        st === undefined ? "absent" : st.isDirectory() ? "directory" : "other",
      );
      this.#kinds.set(raw, kind);
    }
    return kind;
  }

  /** The first leading path of `raw` that is not a real directory, with what it is; undefined when none. */
  async firstNotDirectory(raw: RawPath): Promise<{ path: RawPath; kind: PathKind } | undefined> {
    for (let end = raw.indexOf("/"); end > 0; end = raw.indexOf("/", end + 1)) {
      const path = raw.slice(0, end);
      const kind = await this.kind(path);
      if (kind !== "directory") return { path, kind };
    }
    return undefined;
  }

  /**
   * What is at `raw` in the directory itself: its lstat; `absent`; `beyond`, when a leading path is not a
   * real directory (git will not look past a link, nor should this process); or `denied`, when a leading
   * directory may not be searched.
   */
  async look(raw: RawPath): Promise<Stats | "absent" | "beyond" | "denied"> {
    if (await this.firstNotDirectory(raw)) return "beyond";
    try {
      return (await lstatOrMissing(fsPath(this.directory, raw))) ?? "absent";
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EACCES" || code === "EPERM") return "denied";
      throw error;
    }
  }
}

/** lstat that takes a missing path (or one under a file) for an answer: undefined. */
async function lstatOrMissing(path: Buffer): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}
