import type { Message, ToolResultMessage } from "@ollie/backends";
import { z } from "zod";
import type { TaskState } from "../history/task-state.js";
import type { UsageTotals } from "../history/usage-meter.js";
import {
  messageSchema,
  type PersistedSession,
  taskStateSchema,
  toolResultSchema,
  usageTotalsSchema,
} from "./persisted-session.js";

/**
 * What an agent records between two saves, so that a process killed at any point loses nothing it finished
 * (see AgentOptions.journal). Entries come in order, one at a time, in the same queue as the saves; a save
 * holds everything recorded before it, so a journal may be emptied once a save that follows its entries
 * succeeded. Each entry names the history it belongs to (`history`, PersistedSession.historyId) and is
 * applied by `replayJournal`, which skips what the session already holds: an entry applied twice, or to a
 * session saved after it, changes nothing.
 */
export type JournalEntry =
  /**
   * A round of tool calls begins, before its first call runs: the history from index `at` on (whatever
   * entered it since the last record — the last round's results, an injection, a nudge — then the model's
   * reply with its calls), the session's usage with that reply counted, and the task state.
   */
  | {
      type: "round";
      history: string;
      at: number;
      messages: Message[];
      usage: UsageTotals;
      taskState: TaskState;
    }
  /** A call of the running round ended, with the result the model will read; `round` is its reply's index. */
  | { type: "result"; history: string; round: number; result: ToolResultMessage };

/** The schema of a journal entry, for reading one back from storage. */
export const journalEntrySchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("round"),
    history: z.string().min(1),
    at: z.number().int().nonnegative(),
    messages: z.array(messageSchema),
    usage: usageTotalsSchema,
    taskState: taskStateSchema,
  }),
  z.object({
    type: z.literal("result"),
    history: z.string().min(1),
    round: z.number().int().nonnegative(),
    result: toolResultSchema,
  }),
]);

/**
 * A saved session with the journal entries written after it applied: rounds the save did not hold are
 * added, and each result goes after its call's round, in the order of the calls. Entries for another
 * history, and what the session holds already, are skipped; a round that would leave a gap (an entry lost)
 * stops the replay there, so that nothing is put in the wrong place. `applied` counts the entries used.
 * Call `repairSession` afterwards for the call that was running and the turn that was cut off.
 */
export function replayJournal(
  session: PersistedSession,
  entries: readonly JournalEntry[],
): { session: PersistedSession; applied: number } {
  let messages = session.messages;
  let { usage, taskState } = session;
  let turnRunning = session.turnRunning === true;
  let applied = 0;
  for (const entry of entries) {
    if (session.historyId === undefined || entry.history !== session.historyId) continue;
    if (entry.type === "round") {
      if (entry.at > messages.length) break;
      if (messages.length >= entry.at + entry.messages.length) continue;
      messages = [...messages.slice(0, entry.at), ...entry.messages];
      ({ usage, taskState } = entry);
      // A round recorded after the last save belongs to a turn that save did not see end.
      turnRunning = true;
    } else {
      const placed = placeResult(messages, entry.round, entry.result);
      if (!placed) continue;
      messages = placed;
    }
    applied++;
  }
  if (applied === 0) return { session, applied };
  return {
    session: { ...session, messages, usage, taskState, ...(turnRunning && { turnRunning }) },
    applied,
  };
}

/**
 * `messages` with `result` among the results after its round's reply (at `round`), in the order of the
 * calls; undefined when that reply is not there or its call has a result already.
 */
function placeResult(
  messages: readonly Message[],
  round: number,
  result: ToolResultMessage,
): Message[] | undefined {
  const reply = messages[round];
  if (reply?.role !== "assistant") return undefined;
  const calls = (reply.toolCalls ?? []).map((c) => c.id);
  const order = calls.indexOf(result.toolCallId);
  if (order < 0) return undefined;
  let end = round + 1;
  while (end < messages.length && messages[end]!.role === "tool") end++;
  const results = messages.slice(round + 1, end) as ToolResultMessage[];
  if (results.some((r) => r.toolCallId === result.toolCallId)) return undefined;
  const later = results.findIndex((r) => calls.indexOf(r.toolCallId) > order);
  const at = later < 0 ? end : round + 1 + later;
  return [...messages.slice(0, at), result, ...messages.slice(at)];
}
