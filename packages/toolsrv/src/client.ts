// @ollie/toolsrv/client: what an agent uses to reach toolsrv over 9P. No process is started from here.

export type { ToolMeta } from "./metadata/tool-meta.js";
