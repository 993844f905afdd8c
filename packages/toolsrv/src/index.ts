// The public face of @ollie/toolsrv (the server side): every name exported here is part of the API.

export {
  BypassBroker,
  type BypassRequest,
  type BypassRequestDetails,
  type BypassRequestSpec,
} from "./broker/bypass-broker.js";
export {
  type BypassOperation,
  type BypassPolicy,
  BypassPolicyError,
  EMPTY_BYPASS_POLICY,
  loadBypassPolicy,
} from "./broker/bypass-policy.js";
export { type CatalogEntry, SIDECAR, ToolCatalog } from "./catalog/tool-catalog.js";
export { argumentEnv, startTool, type ToolOutcome, type ToolRequest, type ToolRun } from "./exec/run-tool.js";
export { HeaderError, parseHeader } from "./metadata/header.js";
export { type BrokenTool, checkMeta, DEFAULT_TOOL_TIMEOUT_MS, type ToolMeta } from "./metadata/tool-meta.js";
export type { AgentSandbox } from "./server/agent-sandbox.js";
export { BUILTINS } from "./server/builtins.js";
export { createToolServer, type ToolServer, type ToolServerOptions } from "./server/tool-server.js";
export { type CallRequest, type CallResult, ToolService } from "./server/tool-service.js";
