import { access } from "node:fs/promises";
import { join } from "node:path";

/** The directories a profile or skill is looked for in: the user's first, then what ships with the app. */
export async function findIn(dirs: readonly string[], file: string): Promise<string | undefined> {
  for (const dir of dirs) {
    const path = join(dir, file);
    if (
      await access(path).then(
        () => true,
        () => false,
      )
    )
      return dir;
  }
  return undefined;
}
