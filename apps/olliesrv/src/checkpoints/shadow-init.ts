import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { CheckpointsUnavailable } from "./errors.js";
import { runGit } from "./git.js";

/** The file of a shadow repository that names the directory it records. */
const DIRECTORY_FILE = "directory";

/**
 * The shadow repository's own settings. Files are stored and restored byte for byte, modes and links
 * included: no line-ending conversion, symbolic links stored as links, the executable bit kept, names as
 * Linux allows them (no NTFS or HFS rules). No automatic gc or maintenance runs in the middle of a
 * checkpoint, no reflogs grow, no renames are looked for. The index is written in version 4, which writes
 * each path as what it shares with the one before and the rest: a quarter smaller, read and written
 * faster.
 */
function configText(directory: string): string {
  const quoted = directory.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
  return `[core]
\trepositoryformatversion = 0
\tbare = false
\tworktree = "${quoted}"
\tfilemode = true
\tsymlinks = true
\tignorecase = false
\tprecomposeunicode = false
\tautocrlf = false
\tsafecrlf = false
\tprotectNTFS = false
\tprotectHFS = false
\tfsmonitor = false
\thooksPath = /dev/null
\tlogAllRefUpdates = false
\tuntrackedCache = false
[index]
\tversion = 4
[gc]
\tauto = 0
[maintenance]
\tauto = false
[status]
\trenames = false
[diff]
\trenames = false
`;
}

/**
 * Attributes that outrank every `.gitattributes` of the directory ($GIT_DIR/info/attributes comes last): no
 * end-of-line conversion, no clean or smudge filter, no `$Id$` expansion, no re-encoding — what is stored
 * is the file's bytes, and what a rewind writes is what was stored.
 */
const ATTRIBUTES = "* -text -eol -crlf -filter -ident -working-tree-encoding\n";

/** The shadow git directory of `directory` (a realpath) under `dataDir`. */
export function shadowGitDir(dataDir: string, directory: string): string {
  const hash = createHash("sha256").update(directory).digest("hex").slice(0, 32);
  return join(dataDir, "checkpoints", hash);
}

/**
 * Opens the shadow repository of `directory` at `gitDir`, making it first if there is none: made in a
 * temporary directory beside it and renamed into place, so that a repository is either whole or absent,
 * and of two openers at once one makes it. Rejects with CheckpointsUnavailable when `gitDir` records
 * another directory.
 */
export async function ensureShadowRepo(gitDir: string, directory: string): Promise<void> {
  const recorded = await readDirectoryFile(gitDir);
  if (recorded === undefined) {
    const parent = join(gitDir, "..");
    await mkdir(parent, { recursive: true, mode: 0o700 });
    // Checkpoints of a directory that holds the data directory (a home directory) leave themselves out.
    const inside = relative(directory, await realpath(parent));
    const temporary = `${gitDir}.new-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      await runGit({ workTree: parent }, ["init", "--quiet", "--bare", "--template=", temporary], {
        config: ["init.defaultBranch=checkpoints"],
      });
      await writeFile(join(temporary, "config"), configText(directory));
      await mkdir(join(temporary, "info"), { recursive: true });
      await writeFile(join(temporary, "info", "attributes"), ATTRIBUTES);
      await writeFile(join(temporary, DIRECTORY_FILE), `${directory}\n`);
      if (inside !== "" && !inside.startsWith("..") && !isAbsolute(inside))
        await writeFile(
          join(temporary, "info", "exclude"),
          `/${inside.replace(/[\\*?[\]!#\s]/g, "\\$&")}/\n`,
        );
      await rename(temporary, gitDir).catch((error: NodeJS.ErrnoException) => {
        // Another opener was first: its repository stands.
        if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
      });
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
  }
  const owner = recorded ?? (await readDirectoryFile(gitDir));
  if (owner !== directory)
    throw new CheckpointsUnavailable(
      directory,
      `the shadow repository ${gitDir} records ${owner === undefined ? "no directory" : owner}`,
    );
}

async function readDirectoryFile(gitDir: string): Promise<string | undefined> {
  try {
    return (await readFile(join(gitDir, DIRECTORY_FILE), "utf8")).replace(/\n$/, "");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
