// @ollie/toolsrv/client: what an agent uses to reach toolsrv over 9P. No process is started from here.

export { BypassConn, type BypassConnOptions } from "./client/bypass-conn.js";
export { ToolsrvConn, type ToolsrvConnOptions } from "./client/toolsrv-conn.js";
export type { ToolMeta } from "./metadata/tool-meta.js";
export {
  type AgentMcpServerState,
  type AgentMcpStatus,
  DAEMON_UNAME,
  type McpHttpServerEntry,
  type McpServerEntry,
  type McpStdioServerEntry,
} from "./protocol/agent-mcp.js";
export type { AgentSandbox } from "./protocol/agent-sandbox.js";
export type { BypassFiling } from "./protocol/bypass-filing.js";
export type { BypassRequestInfo, PendingBypass } from "./protocol/bypass-request.js";
export type { CallResult } from "./protocol/call.js";
export type { ProcessInfo } from "./protocol/process-info.js";
