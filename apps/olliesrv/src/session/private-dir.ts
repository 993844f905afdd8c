import { chmod, lstat, mkdir } from "node:fs/promises";

/**
 * Makes `dir` (mode 0700) unless it is there, and refuses it unless it is a directory of this user's own and
 * no symbolic link — as one another user made first in a shared /tmp would not be: they could read what is
 * put in it, or swap what lies inside for a link. It is made private (0700) whatever it was.
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  const info = await lstat(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid))
    throw new Error(
      `${dir} is a symbolic link or not this user's own directory: remove it, or set another TMPDIR`,
    );
  if ((info.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
}
