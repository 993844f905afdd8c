import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { History } from "../history/history.js";
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

/**
 * Writes `session` to `file` atomically: a temporary file in the same directory, flushed to disk, then
 * renamed over the old one. A crash leaves the old file or the new one, never half of one.
 */
export async function saveSession(file: string, session: PersistedSession): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const handle = await open(temp, "w", 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(session)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
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
  const history = new History(session.messages);
  const repaired = history.repairUnansweredCalls();
  if (repaired > 0) {
    session.messages = [...history.messages];
    await saveSession(file, session);
  }
  return { session, repaired };
}
