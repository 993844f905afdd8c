// The public face of @ollie/agent-core: every name exported here is part of the API.

export { estimateTokens } from "@ollie/backends";
export { writeFileAtomic } from "@ollie/config-file";
export { Agent } from "./agent/agent.js";
export type { AgentOptions, ProfileLoader } from "./agent/agent-options.js";
export {
  AgentBusyError,
  HookBlockedError,
  InjectionsFullError,
  QueueFullError,
  TurnInterruptedError,
} from "./agent/errors.js";
export { Submission } from "./agent/submission.js";
export {
  type CompactionOptions,
  type CompactionTrigger,
  DEFAULT_COMPACTION,
} from "./compaction/compaction-options.js";
export { CompactionSummaryError } from "./compaction/summary.js";
export type { ContextFigures } from "./context/context-meter.js";
export type {
  AgentEvent,
  AgentListener,
  AgentState,
  TurnOutcome,
  TurnStatus,
} from "./events/agent-events.js";
export type { StopNotice } from "./events/stop-notice.js";
export {
  type AnswerOptions,
  answerUnanswered,
  INTERRUPTED_RESULT,
  INTERRUPTED_TURN,
  RESTART_RESULT,
} from "./history/history.js";
export { NUDGE_PREFIX } from "./history/nudge.js";
export { emptyTaskState, renderTaskState, type TaskState } from "./history/task-state.js";
export { emptyTotals, type UsageTotals } from "./history/usage-meter.js";
export { type AgentHooks, CONTINUE, type HookEvent, type HookResult } from "./hooks/agent-hooks.js";
export { DEFAULT_DISPATCH, type DispatchOptions, ToolTimeoutError } from "./loop/dispatch.js";
export { DEFAULT_SAFETY_LIMITS, type SafetyLimits, SafetyStopError } from "./loop/safety.js";
export { StreamIdleError } from "./model/model-request.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./model/retry-policy.js";
export { type JournalEntry, journalEntrySchema, replayJournal } from "./persist/journal.js";
export { appendJournal, type JournalContents, readJournal } from "./persist/journal-file.js";
export { type PersistedSession, persistedSessionSchema } from "./persist/persisted-session.js";
export {
  loadSession,
  SessionFileError,
  type SessionFileOptions,
  saveSession,
} from "./persist/session-file.js";
export { newSessionId } from "./persist/session-id.js";
export { repairSession } from "./persist/session-repair.js";
export { DEFAULT_MAX_STEPS, type Runtime, type RuntimeSpec } from "./runtime/runtime.js";
export {
  defineTool,
  type JsonSchema,
  type ToolArguments,
  type ToolDefinition,
} from "./tools/define-tool.js";
export type { StandardSchemaV1 } from "./tools/standard-schema.js";
export type { ToolExecutor, ToolInfo, ToolResult } from "./tools/tool-executor.js";
export { ToolSchemaError } from "./tools/tool-json-schema.js";
export { type FunctionTool, ToolSet, UnknownToolError } from "./tools/tool-set.js";
