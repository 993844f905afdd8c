// The public face of @ollie/client: every name exported here is part of the API.

export { Agent, type StateWanted } from "./agent/agent.js";
export { Prompt } from "./agent/prompt.js";
export { Bypass, BypassRequest } from "./bypass/bypass.js";
export { type ChatKind, type ChatPiece, ChatPieces } from "./chat/chat-pieces.js";
export { type ChatOptions, ChatStream } from "./chat/chat-stream.js";
export { OllieClient } from "./client.js";
export { type ConnectOptions, connect } from "./connect/connect.js";
export {
  AttachRefusedError,
  DialError,
  KeyFileError,
  NoSuchSessionError,
  RefusedError,
  ReplyFormatError,
} from "./errors.js";
export { EventStream, type EventsOptions } from "./events/event-stream.js";
export type {
  AgentEventBody,
  AgentEventRecord,
  EventStamp,
  EventsDropped,
  OllieEvent,
  OtherEvent,
  RequestUsage,
  SessionEventBody,
  SessionEventRecord,
  ToolCallRecord,
  ToolResultRecord,
  TurnRecord,
} from "./events/event-types.js";
export type { AgentActivity } from "./formats/activity.js";
export type { AgentConfig, AgentSettings, RemoteTools } from "./formats/agent-config.js";
export { type AgentState, callingTools } from "./formats/agent-state.js";
export type { SessionBudget } from "./formats/budget.js";
export type { BypassOperation, PendingBypass } from "./formats/bypass-lines.js";
export type {
  CheckpointEntry,
  CheckpointFile,
  Checkpoints,
  NotedPath,
} from "./formats/checkpoints.js";
export type { HistoryMessage } from "./formats/history.js";
export type { Outcome, TurnEnd, TurnStatus } from "./formats/outcome.js";
export type { ToolProcess } from "./formats/processes.js";
export type { QueuedPrompt } from "./formats/queue.js";
export type {
  BackendCheck,
  BackendChecks,
  BackendInfo,
  BackendStatus,
  ModelInfo,
  ProfileInfo,
  SessionEntry,
  SkillInfo,
} from "./formats/tables.js";
export type { ToolsrvStatus } from "./formats/toolsrv-status.js";
export type { AgentCost, AgentUsage, ContextSize, UsageTotals } from "./formats/usage.js";
export { isSessionId } from "./namespace/paths.js";
export { defaultAddress, type OllieDirs, ollieDirs } from "./ollie-dirs.js";
export {
  RUN_EVENTS_VERSION,
  type RunApproval,
  type RunApprovals,
  type RunDiscard,
  type RunError,
  type RunEvent,
  type RunNotice,
  type RunOutcome,
  type RunReasoning,
  type RunStart,
  type RunStatus,
  type RunText,
  type RunToolCall,
  type RunToolResult,
  type RunUsage,
} from "./run/run-event.js";
export { Session } from "./session/session.js";
export type { ForkOptions, McpServerSpec, SessionSpec } from "./session/session-spec.js";
export { Watch } from "./streams/watch.js";
