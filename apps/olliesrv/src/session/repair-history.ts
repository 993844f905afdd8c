import {
  answerUnanswered,
  INTERRUPTED_RESULT,
  readJournal,
  repairSession,
  replayJournal,
} from "@ollie/agent-core/sessions";
import type { Message } from "@ollie/backends";
import type { SessionFile } from "./session-file.js";
import { journalFile } from "./session-store.js";

/**
 * A copy of a history that may be mid-turn (a fork of a running agent): a call without its result is
 * answered as interrupted — in the copy it never returns — and a prompt without its reply gets
 * INTERRUPTED_TURN, so that the copy is a valid request.
 */
export function repairHistory(messages: readonly Message[]): { messages: Message[]; added: number } {
  return answerUnanswered(messages, {
    cutOff: messages.at(-1)?.role === "user",
    callResult: INTERRUPTED_RESULT,
  });
}

/**
 * Applies each agent's journal (`{id}.{agent}.journal`) to its history in a session file read from disk:
 * the rounds and results recorded after the file was last written. A journal that stops making sense (a
 * line a kill cut short) is used up to there, and one that cannot be read not at all; `warn` says so.
 * Returns how many entries were used.
 */
export async function applyJournals(
  dir: string,
  file: SessionFile,
  warn: (line: string) => void,
): Promise<number> {
  let applied = 0;
  for (const agent of file.agents) {
    const path = journalFile(dir, file.id, agent.name);
    // A journal that cannot be read costs what it holds, never the session.
    const { entries, broken } = await readJournal(path).catch((error: unknown) => {
      warn(`${path}: ${(error as Error).message}; the journal is not used`);
      return { entries: [], broken: undefined };
    });
    if (broken) warn(`${path}:${broken.line}: ${broken.problem}; the journal is used up to that line`);
    if (!agent.session || entries.length === 0) continue;
    const replayed = replayJournal(agent.session, entries);
    agent.session = replayed.session;
    applied += replayed.applied;
  }
  return applied;
}

/**
 * Repairs every agent's history in a session file read from disk (see agent-core's repairSession): the
 * call that was running when olliesrv stopped is answered as interrupted by a restart, and a turn it cut
 * off ends with INTERRUPTED_TURN. Returns how many answers were added.
 */
export function repairSessionFile(file: SessionFile): number {
  let added = 0;
  for (const agent of file.agents) {
    if (!agent.session) continue;
    const repaired = repairSession(agent.session);
    agent.session = repaired.session;
    added += repaired.added;
  }
  return added;
}
