import { randomBytes } from "node:crypto";
import { readFile, stat } from "node:fs/promises";

/**
 * Reads the owner's key, making one (32 random bytes, hex) the first time. The file is private to the user
 * (0600 in a 0700 directory) and written atomically; a key file others can read is refused, because whoever
 * reads it can act as the owner.
 */
export async function loadOwnerKey(file: string): Promise<string> {
  const info = await stat(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return undefined;
    throw new Error(`cannot read the owner key ${file}: ${e.message}`);
  });
  if (info) {
    if ((info.mode & 0o077) !== 0)
      throw new Error(
        `the owner key ${file} is readable by others (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it`,
      );
    const key = (await readFile(file, "utf8")).trim();
    if (key.length < 32)
      throw new Error(`the owner key ${file} is too short to be a key (${key.length} bytes)`);
    return key;
  }
  const key = randomBytes(32).toString("hex");
  // Loaded here, by the daemon: the `ollie` command, which only reads the key, starts without zod and yaml.
  const { writeFileAtomic } = await import("@ollie/config-file");
  await writeFileAtomic(file, `${key}\n`);
  return key;
}

/** The owner key as a client reads it (the `ollie` command): it must exist already. */
export async function readOwnerKey(file: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    throw new Error(
      `cannot read the owner key ${file} (${(error as NodeJS.ErrnoException).code}); olliesrv makes it at its first start`,
    );
  }
}
