// The public face of @ollie/toolsrv (the server side): every name exported here is part of the API. A Node
// program serves tools with createToolServer and a transport of its own; agents reach it through
// @ollie/toolsrv/client. How tools are found, run and sandboxed stays inside.

export type { BypassBroker } from "./broker/bypass-broker.js";
export {
  type BypassOperation,
  type BypassPolicy,
  BypassPolicyError,
  EMPTY_BYPASS_POLICY,
  loadBypassPolicy,
} from "./broker/bypass-policy.js";
export { DEFAULT_TOOL_TIMEOUT_MS, type ToolMeta } from "./metadata/tool-meta.js";
export {
  type AgentMcpRequest,
  type AgentMcpStatus,
  DAEMON_UNAME,
  type McpServerEntry,
} from "./protocol/agent-mcp.js";
export type { AgentSandbox } from "./protocol/agent-sandbox.js";
export type { CallRequest, CallResult } from "./protocol/call.js";
export { createToolServer, type ToolServer, type ToolServerOptions } from "./server/tool-server.js";
export type { ToolService } from "./server/tool-service.js";
