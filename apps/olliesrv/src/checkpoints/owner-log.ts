import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Checkpoint } from "./types.js";

/**
 * An owner (`sessionId/agentName`) as one name for a file and a ref: every byte but letters, digits, `_` and
 * `-` written `%XX`, so that no owner can reach outside its place or make an invalid ref.
 */
export function ownerName(owner: string): string {
  if (owner === "") throw new Error("a checkpoint owner may not be empty");
  let name = "";
  for (const byte of Buffer.from(owner, "utf8")) {
    const c = String.fromCharCode(byte);
    name += /[A-Za-z0-9_-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return name;
}

/** The ref that keeps checkpoint `n` of `owner` (and so its objects) in the shadow repository. */
export function checkpointRef(owner: string, n: number): string {
  return `refs/ollie/${ownerName(owner)}/${n}`;
}

/** The file listing an owner's checkpoints, one JSON line each, oldest first. */
function logFile(gitDir: string, owner: string): string {
  return join(gitDir, "owners", `${ownerName(owner)}.jsonl`);
}

/**
 * Every checkpoint of `owner`, oldest first. A line that does not parse (the last, cut short by a crash
 * while it was written) is passed over.
 */
export async function readOwnerLog(gitDir: string, owner: string): Promise<Checkpoint[]> {
  let text: string;
  try {
    text = await readFile(logFile(gitDir, owner), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const checkpoints: Checkpoint[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const entry = JSON.parse(line) as Checkpoint;
      if (Number.isInteger(entry.n) && typeof entry.commit === "string") checkpoints.push(entry);
    } catch {
      // A torn last line.
    }
  }
  return checkpoints;
}

/**
 * Adds `checkpoint` to its owner's log: one append of one line, so the log only ever grows by whole lines
 * (a crash can at worst cut the last one, which readOwnerLog passes over). A line starts on a line of its
 * own even after such a cut.
 */
export async function appendOwnerLog(gitDir: string, checkpoint: Checkpoint): Promise<void> {
  const file = logFile(gitDir, checkpoint.owner);
  await mkdir(join(file, ".."), { recursive: true });
  await appendFile(file, `\n${JSON.stringify(checkpoint)}\n`, { mode: 0o600 });
}
