import type { Message } from "@ollie/backends";
import { z } from "zod";
import type { TaskState } from "../history/task-state.js";
import type { UsageTotals } from "../history/usage-meter.js";

/** One agent's session as it is saved: enough to carry on exactly where it stopped. */
export interface PersistedSession {
  version: 1;
  /** The session id. */
  id: string;
  /** The agent's immutable id. */
  agentId: string;
  /** Its display name. */
  name: string;
  /** The profile it runs (an agents/NAME.json), if any. */
  agent?: string;
  cwd?: string;
  messages: Message[];
  taskState: TaskState;
  usage: UsageTotals;
  /** What compaction summaries used (a part of `usage`); absent until one was made. */
  compactionUsage?: UsageTotals;
  savedAt: string;
  /** Prompts accepted and not yet begun, oldest first: a restored agent submits them again. */
  queued?: string[];
  /**
   * Saved while a turn ran (or by a close that cut one off): a session restored from this had its last turn
   * cut off, and `repairSession` says so. Absent otherwise.
   */
  turnRunning?: boolean;
  /**
   * Names this history. It changes whenever the history is replaced rather than added to (a compaction, a
   * profile switch), so that journal entries written against another history are never applied to this one
   * (see `replayJournal`). Absent in sessions saved before journals were.
   */
  historyId?: string;
}

const origin = z.object({ provider: z.string(), model: z.string() });

const toolCall = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  signature: z.string().optional(),
  origin: origin.optional(),
  argumentsError: z.string().optional(),
  rawArguments: z.string().optional(),
});

/** A tool call's result, as a history holds it. */
export const toolResultSchema = z.object({
  role: z.literal("tool"),
  toolCallId: z.string(),
  name: z.string(),
  content: z.string(),
  isError: z.boolean().optional(),
});

/** One message of a history, checked to the last field. */
export const messageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string(),
    toolCalls: z.array(toolCall).optional(),
    reasoning: z
      .array(
        z.object({
          text: z.string(),
          signature: z.string().optional(),
          redacted: z.string().optional(),
          origin: origin.optional(),
        }),
      )
      .optional(),
  }),
  toolResultSchema,
]);

const count = z.number().nonnegative();

/** The task state, as TaskState. */
export const taskStateSchema = z.object({
  objective: z.string(),
  planStep: z.string().optional(),
  constraints: z.array(z.string()),
  lastAction: z.string().optional(),
  nextDecision: z.string().optional(),
});

/** Tokens, requests and cost, as UsageTotals. */
export const usageTotalsSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  cachedInputTokens: count,
  cacheCreationTokens: count,
  requests: count,
  costUsd: count,
});

/**
 * The schema of a saved session, strict to the last nested field: a file that passes is one an agent can be
 * restored from. Programs that keep sessions inside files of their own embed it (olliesrv does).
 */
export const persistedSessionSchema = z.object({
  version: z.literal(1),
  id: z.string().min(1),
  agentId: z.string().min(1),
  name: z.string(),
  agent: z.string().optional(),
  cwd: z.string().optional(),
  messages: z.array(messageSchema),
  queued: z.array(z.string()).optional(),
  taskState: taskStateSchema,
  usage: usageTotalsSchema,
  compactionUsage: usageTotalsSchema.optional(),
  savedAt: z.string(),
  turnRunning: z.boolean().optional(),
  historyId: z.string().min(1).optional(),
});
