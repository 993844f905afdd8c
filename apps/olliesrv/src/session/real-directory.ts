import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";

/**
 * `dir` (resolved from `base`) as the real path of a directory, or an Error saying it is not one. A session's
 * directory is kept as a real path: its tools are granted it by that path, and the launcher refuses a path
 * that goes through a symbolic link by the time a call runs — a link an agent put there since, which would
 * otherwise carry the grant somewhere else.
 */
export async function realDirectory(dir: string, base = process.cwd()): Promise<string> {
  const wanted = resolve(base, dir);
  const real = await realpath(wanted).catch(() => undefined);
  const info = real === undefined ? undefined : await stat(real).catch(() => undefined);
  if (real === undefined || !info?.isDirectory()) throw new Error(`${wanted} is not a directory`);
  return real;
}
