import { answerUnanswered } from "../history/history.js";
import type { PersistedSession } from "./persisted-session.js";

/**
 * A saved session as an agent restored from it carries on: each call left without a result (it was running
 * when the process died) is answered with RESTART_RESULT, and a turn the process cut off ends with
 * INTERRUPTED_TURN, once — unless the model's final reply was recorded, since then the turn had finished.
 * A turn was cut off when the session was saved while it ran (`turnRunning`); a session saved before that
 * field was (it has no `historyId` either) is judged by its last message: a prompt left without a reply.
 * The result no longer says a turn runs. `added` counts the answers made (0: the session is returned as is).
 */
export function repairSession(session: PersistedSession): { session: PersistedSession; added: number } {
  const cutOff =
    session.turnRunning ?? (session.historyId === undefined && session.messages.at(-1)?.role === "user");
  const { messages, added } = answerUnanswered(session.messages, { cutOff });
  if (added === 0 && session.turnRunning === undefined) return { session, added };
  const { turnRunning: _running, ...rest } = session;
  return { session: { ...rest, messages }, added };
}
