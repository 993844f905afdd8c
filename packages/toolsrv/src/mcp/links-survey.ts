import type { BrokenTool, ToolMeta } from "../metadata/tool-meta.js";
import type { LinkState, McpLink } from "./mcp-link.js";
import { mcpToolMeta } from "./mcp-tool-meta.js";

/** A tool of an MCP server, as an Ollie tool. */
export interface McpToolEntry {
  meta: ToolMeta;
  link: McpLink;
  /** Its name on the server. */
  tool: string;
}

/**
 * The tools of some MCP servers, by Ollie name, and what of them cannot be used (`broken`, added to those
 * given): a server that does not run and lists nothing, a tool its server refused, a tool whose Ollie name
 * another server's took first.
 */
export function surveyLinks(
  links: Iterable<McpLink>,
  broken: BrokenTool[],
): { tools: Map<string, McpToolEntry>; broken: BrokenTool[] } {
  const tools = new Map<string, McpToolEntry>();
  for (const link of links) {
    if (link.state.get() === "broken" && link.tools.length === 0)
      broken.push({ file: link.config.source, reason: link.problem ?? "not running" });
    for (const refused of link.listing.refused)
      broken.push({
        file: link.config.source,
        reason: `its tool '${refused.name}' cannot be used: ${refused.reason}`,
      });
    for (const tool of link.tools) {
      const meta = mcpToolMeta(link.config, tool);
      const earlier = tools.get(meta.name);
      if (earlier) {
        broken.push({
          file: link.config.source,
          reason: `its tool '${tool.name}' is named ${meta.name} like '${earlier.tool}' of ${earlier.link.name}`,
        });
        continue;
      }
      tools.set(meta.name, { meta, link, tool: tool.name });
    }
  }
  return { tools, broken };
}

/** What the namespace's `mcp` file says of a server. */
export interface McpServerStatus {
  name: string;
  /** The agent whose own server it is (`"shared": false`); null for a server all agents share. */
  agent: string | null;
  state: LinkState;
  transport: "stdio" | "http";
  pid: number | null;
  restarts: number;
  tools: number;
  problem: string | null;
  stderr: string;
}

/** A server as the `mcp` file shows it. */
export function linkStatus(link: McpLink): McpServerStatus {
  return {
    name: link.name,
    agent: link.agent ?? null,
    state: link.state.get(),
    transport: link.config.kind,
    pid: link.pid ?? null,
    restarts: link.restarts,
    tools: link.tools.length,
    problem: link.problem ?? null,
    stderr: link.stderrTail(),
  };
}
