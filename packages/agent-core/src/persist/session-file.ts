import { readFile } from "node:fs/promises";
import { answerUnanswered } from "../history/history.js";
import { writeFileAtomic } from "./atomic-write.js";
import { type PersistedSession, persistedSessionSchema } from "./persisted-session.js";

/** A session file that could not be read back: which file, and what is wrong with it. */
export class SessionFileError extends Error {
  override readonly name = "SessionFileError";
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
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
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new SessionFileError(file, (error as Error).message);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SessionFileError(file, `not JSON: ${(error as Error).message}`);
  }
  const parsed = persistedSessionSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SessionFileError(file, `${issue.path.join(".") || "(top)"}: ${issue.message}`);
  }
  const session = parsed.data as PersistedSession;
  const { messages, added: repaired } = answerUnanswered(session.messages);
  if (repaired > 0) {
    session.messages = messages;
    await saveSession(file, session);
  }
  return { session, repaired };
}
