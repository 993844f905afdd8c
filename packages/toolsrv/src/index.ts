// The public face of @ollie/toolsrv (the server side): every name exported here is part of the API.

export { type CatalogEntry, SIDECAR, ToolCatalog } from "./catalog/tool-catalog.js";
export { HeaderError, parseHeader } from "./metadata/header.js";
export { type BrokenTool, checkMeta, DEFAULT_TOOL_TIMEOUT_MS, type ToolMeta } from "./metadata/tool-meta.js";
