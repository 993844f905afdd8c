import { rm } from "node:fs/promises";
import { ConfigError, checkDocument, readConfigDocument, writeFileAtomic } from "@ollie/config-file";
import { replayJournal } from "./journal.js";
import { readJournal } from "./journal-file.js";
import { type PersistedSession, persistedSessionSchema } from "./persisted-session.js";
import { repairSession } from "./session-repair.js";

/** A session file that could not be read back: which file, and what is wrong with it. */
export class SessionFileError extends ConfigError {
  override readonly name = "SessionFileError";
}

/** Where a session's journal is kept (see `appendJournal`), beside its file. */
export interface SessionFileOptions {
  journal?: string;
}

/**
 * Writes `session` to `file` atomically (see writeFileAtomic); with `journal`, then empties that journal,
 * whose entries the session now holds.
 */
export async function saveSession(
  file: string,
  session: PersistedSession,
  options: SessionFileOptions = {},
): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(session)}\n`);
  if (options.journal !== undefined) await rm(options.journal, { force: true });
}

/**
 * Reads a session file back, with `journal`'s entries applied (see replayJournal). What the process left
 * unfinished is repaired (see repairSession) — a call without its result, a turn cut off — and the repaired
 * session written back at once (emptying the journal).
 */
export async function loadSession(
  file: string,
  options: SessionFileOptions = {},
): Promise<{ session: PersistedSession; repaired: number }> {
  const doc = await readConfigDocument(file, { format: "json", errorType: SessionFileError });
  if (!doc) throw new SessionFileError(file, { problem: "no such session file" });
  const saved = checkDocument(persistedSessionSchema, doc, SessionFileError) as PersistedSession;
  const { entries } = options.journal === undefined ? { entries: [] } : await readJournal(options.journal);
  const replayed = replayJournal(saved, entries);
  const { session, added: repaired } = repairSession(replayed.session);
  if (repaired > 0 || replayed.applied > 0) await saveSession(file, session, options);
  return { session, repaired };
}
