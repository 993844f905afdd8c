import { ConfigError, checkDocument, readConfigDocument, writeFileAtomic } from "@ollie/config-file";
import { answerUnanswered } from "../history/history.js";
import { type PersistedSession, persistedSessionSchema } from "./persisted-session.js";

/** A session file that could not be read back: which file, and what is wrong with it. */
export class SessionFileError extends ConfigError {
  override readonly name = "SessionFileError";
}

/** Writes `session` to `file` atomically (see writeFileAtomic). */
export async function saveSession(file: string, session: PersistedSession): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(session)}\n`);
}

/**
 * Reads a session file back. Tool calls the file has no results for (the process stopped in the middle of a
 * round) get "interrupted" results, so the next request is valid, and the repair is written back at once.
 */
export async function loadSession(file: string): Promise<{ session: PersistedSession; repaired: number }> {
  const doc = await readConfigDocument(file, { format: "json", errorType: SessionFileError });
  if (!doc) throw new SessionFileError(file, { problem: "no such session file" });
  const session = checkDocument(persistedSessionSchema, doc, SessionFileError) as PersistedSession;
  const { messages, added: repaired } = answerUnanswered(session.messages);
  if (repaired > 0) {
    session.messages = messages;
    await saveSession(file, session);
  }
  return { session, repaired };
}
