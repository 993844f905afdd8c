import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import {
  copyFile,
  link,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  utimes,
  writeFile,
} from "node:fs/promises";
import { dirname, join } from "node:path";

/** Files to send to a host as one directory, named by the hash of its paths, modes and contents. */
export interface Bundle {
  /** Every file: its path in the bundle, and where it is here. */
  files: { path: string; source: string; executable: boolean }[];
  /** sha256 of every path, mode and content (32 hex digits): the directory's name there. */
  hash: string;
  /** What `bundle.json` says of it; the file's presence marks a whole bundle. */
  manifest: unknown;
}

/** Every file below `dir`, but for the names `skip` refuses at its top. */
export async function walk(dir: string, skip: (name: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (skip(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path, () => false)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** Hashes `files` (sorted by path) into a bundle. */
export async function hashedBundle(
  files: { path: string; source: string }[],
  manifest: unknown,
): Promise<Bundle> {
  const hash = createHash("sha256");
  const out: Bundle["files"] = [];
  for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const executable = ((await stat(file.source)).mode & 0o111) !== 0;
    out.push({ ...file, executable });
    hash.update(`${file.path}\0${executable ? "x" : "-"}\0`);
    hash.update(await readFile(file.source));
    hash.update("\0");
  }
  return { files: out, hash: hash.digest("hex").slice(0, 32), manifest };
}

/** Files of a bundle placed at once while it is staged. */
const PLACED_AT_ONCE = 16;

/**
 * Puts a file into a staged bundle: a hard link (nothing is copied, and the mode and times are the
 * file's), or where the cache is on another file system or refuses links, a copy with the same times.
 */
async function place(source: string, target: string): Promise<void> {
  try {
    await link(source, target);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EXDEV" && code !== "EPERM" && code !== "EMLINK") throw error;
  }
  await copyFile(source, target);
  const { atime, mtime } = await stat(source);
  await utimes(target, atime, mtime);
}

/**
 * The bundle as a directory under `cacheDir` named by its hash, made once (in a temporary directory renamed
 * into place, so a half-made one is never taken for whole).
 */
export async function stageBundle(bundle: Bundle, cacheDir: string): Promise<string> {
  const target = join(cacheDir, bundle.hash);
  if (existsSync(target)) return target;
  await mkdir(cacheDir, { recursive: true, mode: 0o700 });
  const temp = join(cacheDir, `.${bundle.hash}.${process.pid}.tmp`);
  await rm(temp, { recursive: true, force: true });
  // Made first: a bundle with no files at all (a configuration with no tools and no policies) is still one.
  await mkdir(temp, { mode: 0o700 });
  const dirs = new Set(bundle.files.map((file) => dirname(join(temp, file.path))));
  for (const dir of [...dirs].sort()) await mkdir(dir, { recursive: true });
  // Thousands of files (toolsrv's packages): placed a few at a time, each linked where it can be.
  const queue = [...bundle.files];
  const placeNext = async (): Promise<void> => {
    for (let file = queue.pop(); file; file = queue.pop()) await place(file.source, join(temp, file.path));
  };
  await Promise.all(Array.from({ length: PLACED_AT_ONCE }, placeNext));
  await writeFile(join(temp, "bundle.json"), `${JSON.stringify(bundle.manifest)}\n`);
  await rename(temp, target).catch(async (error: NodeJS.ErrnoException) => {
    // Another daemon staged the same bundle first: theirs is the same bytes.
    await rm(temp, { recursive: true, force: true });
    if (!existsSync(target)) throw error;
  });
  return target;
}
