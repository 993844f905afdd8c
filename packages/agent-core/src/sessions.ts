// @ollie/agent-core/sessions: sessions on disk, and what storage of your own needs — saving and loading a
// session with its journal, the schemas that check what was read back, replaying a journal, the repair of
// what a process left unfinished and the marks it and the loop leave in a history. Kept apart from the
// main entry because it writes files, and because an agent that is never saved needs none of it.

export {
  type AnswerOptions,
  answerUnanswered,
  INTERRUPTED_RESULT,
  INTERRUPTED_TURN,
  RESTART_RESULT,
} from "./history/history.js";
export { NUDGE_PREFIX } from "./history/nudge.js";
export { emptyTotals } from "./history/usage-meter.js";
export { journalEntrySchema, replayJournal } from "./persist/journal.js";
export { appendJournal, type JournalContents, readJournal } from "./persist/journal-file.js";
export { persistedSessionSchema } from "./persist/persisted-session.js";
export {
  loadSession,
  SessionFileError,
  type SessionFileOptions,
  saveSession,
} from "./persist/session-file.js";
export { newSessionId } from "./persist/session-id.js";
export { repairSession } from "./persist/session-repair.js";
