// The public face of @ollie/agent-core: every name exported here is part of the API. What a program
// embedding an agent needs is here; sessions on disk are @ollie/agent-core/sessions, profiles on disk
// @ollie/agent-core/config.

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
export type { SubmitOptions } from "./agent/submit-options.js";
export {
  type BudgetedRequest,
  budgetRefusal,
  type SpendingLimit,
  type Spent,
} from "./budget/budget-refusal.js";
export { type PlannedRequest, type SpendingGate, spendingLimit } from "./budget/spending-gate.js";
export {
  type CompactionOptions,
  type CompactionTrigger,
  DEFAULT_COMPACTION,
} from "./compaction/compaction-options.js";
export { CompactionSummaryError } from "./compaction/summary.js";
export type { ContextFigures } from "./context/context-meter.js";
export type { AgentEvent, AgentListener, AgentState } from "./events/agent-events.js";
export type { StopNotice } from "./events/stop-notice.js";
export type {
  BlockedOutcome,
  BudgetOutcome,
  DoneOutcome,
  ErrorOutcome,
  HandledOutcome,
  InterruptedOutcome,
  MaxStepsOutcome,
  TurnError,
  TurnOutcome,
  TurnStatus,
} from "./events/turn-outcome.js";
export type { TaskState } from "./history/task-state.js";
export type { UsageTotals } from "./history/usage-meter.js";
export { type AgentHooks, CONTINUE, type HookEvent, type HookResult } from "./hooks/agent-hooks.js";
export { DEFAULT_DISPATCH, type DispatchOptions, ToolTimeoutError } from "./loop/dispatch.js";
export { DEFAULT_SAFETY_LIMITS, type SafetyLimits, SafetyStopError } from "./loop/safety.js";
export { StreamIdleError } from "./model/model-request.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./model/retry-policy.js";
export { UnknownBackendError } from "./model/unknown-backend-error.js";
// The shapes Agent's own signatures use; what reads, writes and repairs them is @ollie/agent-core/sessions.
export type { JournalEntry } from "./persist/journal.js";
export type { PersistedSession } from "./persist/persisted-session.js";
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
