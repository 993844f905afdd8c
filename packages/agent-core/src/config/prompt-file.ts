import { constants } from "node:fs";
import { open, readlink, realpath } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { PromptFileError } from "./prompt-errors.js";
import { MAX_PROMPT_PART_BYTES } from "./prompt-runner.js";

const within = (inner: string, outer: string) =>
  inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : `${outer}${sep}`);

/**
 * Reads a prompt file as this process's user, refusing what an agent could have planted in its working
 * directory to make the reader reach further than the agent can: a name inside `cwd` must lead to a file
 * inside `cwd` (a symbolic link that leaves it is refused — judged on the file actually opened, so swapping a
 * link meanwhile changes nothing), and only a regular file of at most 1 MiB is read (a FIFO would block
 * forever, a device never end). A name outside `cwd` is the profile author's own and is read as named.
 */
export async function readPromptFileWithin(file: string, cwd: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY).catch(
    (error: NodeJS.ErrnoException) => {
      throw new PromptFileError(file, problemOf(error));
    },
  );
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new PromptFileError(file, "is a directory");
    if (!info.isFile()) throw new PromptFileError(file, "is not a regular file");
    if (within(resolve(file), resolve(cwd))) {
      const [opened, root] = await Promise.all([openedPath(handle.fd, file), realpath(cwd)]);
      if (!within(opened, root))
        throw new PromptFileError(file, `leads out of the working directory ${root} through a symbolic link`);
    }
    if (info.size > MAX_PROMPT_PART_BYTES) throw new PromptFileError(file, tooLarge());
    const bytes = Buffer.alloc(MAX_PROMPT_PART_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_PROMPT_PART_BYTES) throw new PromptFileError(file, tooLarge());
    }
    return bytes.subarray(0, length).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** The real path of the file open on `fd`: what /proc says of it on Linux, else the name's real path now. */
async function openedPath(fd: number, file: string): Promise<string> {
  return readlink(`/proc/self/fd/${fd}`).catch(() => realpath(file));
}

function tooLarge(): string {
  return `is larger than ${MAX_PROMPT_PART_BYTES / 1024} KiB`;
}

function problemOf(error: NodeJS.ErrnoException): string {
  if (error.code === "ENOENT") return "does not exist";
  if (error.code === "EISDIR") return "is a directory";
  return `cannot be read: ${error.message}`;
}
