import { type Stats, statSync } from "node:fs";
import { open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseConfigText } from "@ollie/config-file";
import { HeaderError, parseHeader } from "../metadata/header.js";
import { type BrokenTool, checkMeta, type ToolMeta } from "../metadata/tool-meta.js";

/** A tool found on the tools path. */
export interface CatalogEntry {
  meta: ToolMeta;
  /** The executable. */
  file: string;
}

interface Seen {
  mtimeMs: number;
  size: number;
  executable: boolean;
  result: { meta: ToolMeta } | { problem: string } | undefined;
}

/** The suffix of a compiled tool's metadata file: `grep-fast` is described by `grep-fast.meta.json`. */
export const SIDECAR = ".meta.json";
const HEADER_BYTES = 16 * 1024;

/**
 * How much older than a scan a directory or file must be for its mtime to vouch that the scan saw it as it
 * is: a change within the same tick of a coarse clock (a second, on some file systems) would not move it.
 */
const SETTLED_MS = 2000;

/** A directory of the path as the last scan found it. */
interface DirSeen {
  mtimeMs: number;
  ino: number;
}

/**
 * The tools on a search path (`OLLIE_TOOLS_PATH`, `:`-separated): executables that describe themselves in a
 * header comment, or in a sidecar `.meta.json`. Discovery is lazy and follows changes: every look checks the
 * directories and files for changed mtimes and sizes and re-reads only those. A tool whose metadata is
 * broken is reported with its file and reason, never fatal; a name found twice keeps its first place on
 * the path.
 */
export class ToolCatalog {
  private readonly seen = new Map<string, Seen>();
  private entries = new Map<string, CatalogEntry>();
  private brokenTools: BrokenTool[] = [];
  /** The scan under way: every look that starts meanwhile shares it instead of statting every file again. */
  private scanning: Promise<void> | undefined;
  /** The path's directories as the last finished scan found them (before it read them), and when it began. */
  private dirs: Array<DirSeen | undefined> | undefined;
  private scannedAt = 0;

  constructor(readonly path: readonly string[]) {}

  static fromSearchPath(searchPath: string): ToolCatalog {
    return new ToolCatalog(searchPath.split(":").filter((d) => d !== ""));
  }

  /** The tools, by name, as they are now. */
  async tools(): Promise<ReadonlyMap<string, CatalogEntry>> {
    await this.scan();
    return this.entries;
  }

  async get(name: string): Promise<CatalogEntry | undefined> {
    return (await this.tools()).get(name);
  }

  /**
   * A tool by name for a call, as `get` would find it, with a few stats instead of a look at every file:
   * the last scan's entry stands when no directory of the path changed since (no file added, removed or
   * renamed, so none can come first now) and neither did the tool's file or sidecar. Otherwise, and when
   * anything involved is too recent for its mtime to vouch for it, it looks again.
   */
  async find(name: string): Promise<CatalogEntry | undefined> {
    const known = this.entries.get(name);
    if (known && !this.scanning && this.unchangedSince(known.file)) return known;
    return this.get(name);
  }

  // Synchronous stats: one system call each, where the promise form takes a trip through the thread pool.
  private unchangedSince(file: string): boolean {
    const dirs = this.dirs;
    const settled = this.scannedAt - SETTLED_MS;
    if (!dirs) return false;
    for (const [i, dir] of this.path.entries()) {
      const was = dirs[i];
      const now = statOf(dir);
      if (!was || !now) {
        // Missing (or unreadable) both times is unchanged, as a scan would find it.
        if (was || now) return false;
        continue;
      }
      if (now.mtimeMs !== was.mtimeMs || now.ino !== was.ino || was.mtimeMs >= settled) return false;
    }
    const seen = this.seen.get(file);
    const info = statOf(file);
    if (!seen || !info?.isFile()) return false;
    const sidecar = statOf(file + SIDECAR);
    const identity = fileIdentity(info, sidecar);
    return (
      identity.mtimeMs === seen.mtimeMs &&
      identity.size === seen.size &&
      identity.executable === seen.executable &&
      seen.mtimeMs < settled
    );
  }

  /** The files that look like tools but cannot be used, and why. */
  async broken(): Promise<readonly BrokenTool[]> {
    await this.scan();
    return this.brokenTools;
  }

  private scan(): Promise<void> {
    this.scanning ??= this.rescan().finally(() => {
      this.scanning = undefined;
    });
    return this.scanning;
  }

  private async rescan(): Promise<void> {
    const startedAt = Date.now();
    const entries = new Map<string, CatalogEntry>();
    const broken: BrokenTool[] = [];
    const present = new Set<string>();
    // Taken before the directories are read: a change made meanwhile shows as a changed mtime next time.
    const dirs = await Promise.all(
      this.path.map((dir) =>
        stat(dir).then(
          (s): DirSeen => ({ mtimeMs: s.mtimeMs, ino: s.ino }),
          () => undefined,
        ),
      ),
    );
    for (const dir of this.path) {
      const names = (await readdir(dir).catch(() => [] as string[]))
        .filter((name) => !name.endsWith(SIDECAR) && !name.startsWith("."))
        .sort();
      const files = names.map((name) => join(dir, name));
      const results = await Promise.all(files.map((file) => this.describe(file)));
      for (const [i, file] of files.entries()) {
        present.add(file);
        const result = results[i];
        if (!result) continue;
        if ("problem" in result) {
          broken.push({ file, reason: result.problem });
          continue;
        }
        const earlier = entries.get(result.meta.name);
        if (earlier) {
          broken.push({
            file,
            reason: `another tool named '${result.meta.name}' comes first: ${earlier.file}`,
          });
          continue;
        }
        entries.set(result.meta.name, { meta: result.meta, file });
      }
    }
    for (const file of this.seen.keys()) if (!present.has(file)) this.seen.delete(file);
    this.entries = entries;
    this.brokenTools = broken;
    this.dirs = dirs;
    this.scannedAt = startedAt;
  }

  /** The file's metadata, re-read only when it (or its sidecar) changed; undefined if it is no tool. */
  private async describe(file: string): Promise<Seen["result"]> {
    const [info, sidecar] = await Promise.all([
      stat(file).catch(() => undefined),
      stat(file + SIDECAR).catch(() => undefined),
    ]);
    if (!info?.isFile()) return undefined;
    const { mtimeMs, size, executable } = fileIdentity(info, sidecar);
    const known = this.seen.get(file);
    if (known && known.mtimeMs === mtimeMs && known.size === size && known.executable === executable)
      return known.result;
    const meta = await readMeta(file, sidecar !== undefined);
    // A file that describes a tool but lost its executable bit (a careless copy, an archive that drops
    // modes) is reported, not silently skipped: the model would only hear that the tool is gone.
    let result = meta;
    if (!executable)
      result =
        meta && "meta" in meta
          ? { problem: `describes the tool '${meta.meta.name}' but is not executable (chmod +x ${file})` }
          : undefined;
    this.seen.set(file, { mtimeMs, size, executable, result });
    return result;
  }
}

/** A path's stat, or undefined when it cannot be had (missing, unreadable, a component not a directory). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** What tells a tool's file changed: the later mtime and the total size of it and its sidecar, its mode. */
function fileIdentity(info: Stats, sidecar: Stats | undefined) {
  return {
    mtimeMs: Math.max(info.mtimeMs, sidecar?.mtimeMs ?? 0),
    size: info.size + (sidecar?.size ?? 0),
    executable: (info.mode & 0o111) !== 0,
  };
}

async function readMeta(file: string, hasSidecar: boolean): Promise<Seen["result"]> {
  try {
    if (hasSidecar) {
      const sidecar = parseConfigText(await readFile(file + SIDECAR, "utf8"), file + SIDECAR, "json");
      return checkMeta(sidecar.data, { file: sidecar.file, locate: sidecar.locate });
    }
    const raw = parseHeader(await readHead(file));
    return raw === undefined ? undefined : checkMeta(raw);
  } catch (error) {
    if (error instanceof HeaderError) return { problem: `header ${error.message}` };
    return { problem: (error as Error).message };
  }
}

async function readHead(file: string): Promise<string> {
  const handle = await open(file, "r");
  try {
    const buf = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEADER_BYTES, 0);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}
