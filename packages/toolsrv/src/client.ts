// @ollie/toolsrv/client: what an agent uses to reach toolsrv over 9P. No process is started from here.

export {
  BypassConn,
  type BypassConnOptions,
  type BypassFiling,
  type BypassRequestInfo,
  type PendingBypass,
} from "./client/bypass-conn.js";
export {
  type ProcessInfo,
  ToolsrvConn,
  type ToolsrvConnOptions,
} from "./client/toolsrv-conn.js";
export type { ToolMeta } from "./metadata/tool-meta.js";
export type { AgentSandbox } from "./server/agent-sandbox.js";
export type { CallResult } from "./server/tool-service.js";
