import { createHash } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolMeta } from "../metadata/tool-meta.js";
import type { McpServerConfig } from "./mcp-config.js";

/** Providers take tool names of at most 64 characters of letters, digits, `_` and `-`. */
const MAX_NAME = 64;

/**
 * The Ollie name of a server's tool: `mcp__SERVER__TOOL`, as other MCP clients name them, with any other
 * character made `_`. A name past 64 characters is cut and ends in a hash of the whole, so two long names
 * stay apart.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/**
 * A server's tool as an Ollie tool. MCP's `readOnlyHint` is Ollie's `parallel read`: the user chose to
 * trust the servers in mcp.json, and their read-only tools run beside others.
 */
export function mcpToolMeta(server: McpServerConfig, tool: Tool): ToolMeta {
  const title = tool.annotations?.title ?? tool.title;
  const about = tool.description?.trim() || title || `${tool.name} from the MCP server ${server.name}`;
  return {
    name: mcpToolName(server.name, tool.name),
    description: about,
    parameters: { ...tool.inputSchema, type: "object" },
    parallelRead: tool.annotations?.readOnlyHint === true,
    tier: "hot",
    timeoutMs: server.callTimeoutMs,
  };
}
