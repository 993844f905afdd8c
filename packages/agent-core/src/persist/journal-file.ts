import { mkdir, open, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { syncDirectory } from "@ollie/config-file";
import { type JournalEntry, journalEntrySchema } from "./journal.js";

/**
 * Appends `entry` to a journal file as one JSON line and flushes it to the disk (fdatasync; the directory
 * too when the file is new) before it resolves; the file is made (mode 0600) if it is not there. Pair it with `saveSession(file, session,
 * { journal })`, which empties the journal once the session is saved, and `loadSession(file, { journal })`.
 */
export async function appendJournal(file: string, entry: JournalEntry): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const handle = await open(file, "a", 0o600);
  let made: boolean;
  try {
    made = (await handle.stat()).size === 0;
    await handle.appendFile(`${JSON.stringify(entry)}\n`);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  // A journal just made is on the disk only once its directory entry is.
  if (made) await syncDirectory(dirname(file));
}

/** What a journal file holds: its entries, and where it stops making sense if it does before its end. */
export interface JournalContents {
  entries: JournalEntry[];
  /** The first line that is not a whole, valid entry (1-based), and what is wrong with it. */
  broken?: { line: number; problem: string };
}

/**
 * The entries of a journal file, in order (none when there is no file). Reading stops at the first line
 * that is not a whole, valid entry — the one a process killed while writing it left half written, or a
 * write the disk had no room for — since what follows it cannot be trusted to follow on.
 */
export async function readJournal(file: string): Promise<JournalContents> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  const entries: JournalEntry[] = [];
  const lines = text.split("\n");
  // What follows the last newline is a line cut short, or nothing.
  for (const [i, line] of lines.entries()) {
    if (i === lines.length - 1 && line === "") break;
    const entry = entryOf(line);
    if (typeof entry === "string") return { entries, broken: { line: i + 1, problem: entry } };
    entries.push(entry);
  }
  return { entries };
}

/** The entry a line holds, or what is wrong with it. */
function entryOf(line: string): JournalEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return "not JSON";
  }
  const checked = journalEntrySchema.safeParse(value);
  if (checked.success) return checked.data as JournalEntry;
  const issue = checked.error.issues[0]!;
  return `${issue.path.join(".") || "entry"}: ${issue.message}`;
}
