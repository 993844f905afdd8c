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

  /** Every tool, once the MCP servers added a moment ago have started (see McpBridge.tools). */
  async tools(): Promise<ReadonlyMap<string, ToolEntry>> {
    return (await this.survey(true)).tools;
  }

  /**
   * A tool by name: one already known is had at once, whatever servers are still starting. An executable
   * comes first (see ToolCatalog.find: a few stats, not a look at every tool, when nothing changed).
   */
  async get(name: string): Promise<ToolEntry | undefined> {
    const file = await this.catalog.find(name);
    if (file) return file;
    const known = (await this.survey(false)).tools.get(name);
    if (known || !name.startsWith("mcp__")) return known;
    return (await this.survey(true)).tools.get(name);
  }

  async broken(): Promise<readonly BrokenTool[]> {
    return (await this.survey(true)).broken;
  }

  private async survey(
    wait: boolean,
  ): Promise<{ tools: ReadonlyMap<string, ToolEntry>; broken: BrokenTool[] }> {
    if (!this.mcp) {
      const [tools, broken] = await Promise.all([this.catalog.tools(), this.catalog.broken()]);
      return { tools, broken: [...broken] };
    }
    const [files, fileBroken, mcp] = await Promise.all([
      this.catalog.tools(),
      this.catalog.broken(),
      this.mcp.survey(wait),
    ]);
    const tools = new Map<string, ToolEntry>(files);
    const broken = [...fileBroken, ...mcp.broken];
    for (const [name, entry] of mcp.tools) {
      const file = files.get(name);
      if (file)
        broken.push({ file: entry.link.config.source, reason: `its tool ${name} is also ${file.file}` });
      else tools.set(name, entry);
    }
    return { tools, broken };
  }
}
