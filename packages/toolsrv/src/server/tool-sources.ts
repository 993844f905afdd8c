import type { CatalogEntry, ToolCatalog } from "../catalog/tool-catalog.js";
import type { McpBridge, McpToolEntry } from "../mcp/mcp-bridge.js";
import type { BrokenTool } from "../metadata/tool-meta.js";

/** A tool an agent can load: an executable on the tools path, or a tool of an MCP server. */
export type ToolEntry = CatalogEntry | McpToolEntry;

export const isMcpTool = (entry: ToolEntry): entry is McpToolEntry => "link" in entry;

/**
 * Every tool toolsrv offers: the tools path first, then the MCP servers' tools. A name both have keeps the
 * executable, and the MCP tool is reported as broken.
 */
export class ToolSources {
  constructor(
    readonly catalog: ToolCatalog,
    readonly mcp: McpBridge | undefined,
  ) {}

  async tools(): Promise<ReadonlyMap<string, ToolEntry>> {
    return (await this.survey()).tools;
  }

  async get(name: string): Promise<ToolEntry | undefined> {
    return (await this.tools()).get(name);
  }

  async broken(): Promise<readonly BrokenTool[]> {
    return (await this.survey()).broken;
  }

  private async survey(): Promise<{ tools: ReadonlyMap<string, ToolEntry>; broken: BrokenTool[] }> {
    if (!this.mcp) {
      const [tools, broken] = await Promise.all([this.catalog.tools(), this.catalog.broken()]);
      return { tools, broken: [...broken] };
    }
    const [files, fileBroken, mcpTools, mcpBroken] = await Promise.all([
      this.catalog.tools(),
      this.catalog.broken(),
      this.mcp.tools(),
      this.mcp.broken(),
    ]);
    const tools = new Map<string, ToolEntry>(files);
    const broken = [...fileBroken, ...mcpBroken];
    for (const [name, entry] of mcpTools) {
      const file = files.get(name);
      if (file)
        broken.push({ file: entry.link.config.source, reason: `its tool ${name} is also ${file.file}` });
      else tools.set(name, entry);
    }
    return { tools, broken };
  }
}
