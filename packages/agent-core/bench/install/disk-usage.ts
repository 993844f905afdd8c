import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/** What an install left in a project's node_modules. */
export interface NodeModulesFigures {
  /** Package directories, nested ones included (node_modules/X, node_modules/@scope/X, …/node_modules/Y). */
  packages: number;
  /** Bytes on disk, as du counts them: allocated blocks, each inode once. */
  bytes: number;
}

/** Counts the packages under `nodeModules` and the bytes they take on disk. */
export async function nodeModulesFigures(nodeModules: string): Promise<NodeModulesFigures> {
  const seen = new Set<string>();
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const stat = await lstat(path);
      const inode = `${stat.dev}:${stat.ino}`;
      if (!seen.has(inode)) {
        seen.add(inode);
        bytes += stat.blocks * 512;
      }
      if (entry.isDirectory()) await walk(path);
    }
  };
  await walk(nodeModules);
  return { packages: await countPackages(nodeModules), bytes };
}

async function countPackages(nodeModules: string): Promise<number> {
  let count = 0;
  const entries = await readdir(nodeModules, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dirs = entry.name.startsWith("@")
      ? (await readdir(join(nodeModules, entry.name), { withFileTypes: true }))
          .filter((e) => e.isDirectory())
          .map((e) => join(nodeModules, entry.name, e.name))
      : [join(nodeModules, entry.name)];
    for (const dir of dirs) count += 1 + (await countPackages(join(dir, "node_modules")));
  }
  return count;
}

/** Bytes as a person reads them: megabytes of 10^6 bytes, one decimal. */
export const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
