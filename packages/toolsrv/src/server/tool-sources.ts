import type { CatalogEntry, ToolCatalog } from "../catalog/tool-catalog.js";
import type { AgentMcpServers } from "../mcp/agent-mcp-servers.js";
import type { McpToolEntry } from "../mcp/links-survey.js";
import type { McpBridge } from "../mcp/mcp-bridge.js";
import type { BrokenTool } from "../metadata/tool-meta.js";

/** A tool an agent can load: an executable on the tools path, or a tool of an MCP server. */
export type ToolEntry = CatalogEntry | McpToolEntry;

export const isMcpTool = (entry: ToolEntry): entry is McpToolEntry => "link" in entry;

/** A tool of one agent's own MCP server (given for it alone), not of mcp.json. */
export const isOwnMcpTool = (entry: ToolEntry): entry is McpToolEntry =>
  isMcpTool(entry) && entry.link.agent !== undefined;

/**
 * Every tool toolsrv offers: the tools path first, then the MCP servers' tools of mcp.json, then — for the
 * agent asking — its own MCP servers' tools. A name taken twice keeps the first: an executable over an MCP
 * tool, mcp.json's servers over an agent's own, which the user did not vet; the one left out is reported
 * as broken.
 */
export class ToolSources {
  constructor(
    readonly catalog: ToolCatalog,
    readonly mcp: McpBridge | undefined,
    /** Agents' own servers. */
    readonly own?: AgentMcpServers,
  ) {}

  /**
   * Every tool, once the MCP servers added a moment ago have started (see McpBridge.tools); with `uname`,
   * that agent's own servers' tools too.
   */
  async tools(uname?: string): Promise<ReadonlyMap<string, ToolEntry>> {
    return (await this.survey(true, uname)).tools;
  }

  /**
   * A tool by name, as `uname` is offered it: one already known is had at once, whatever servers are still
   * starting. An executable comes first (see ToolCatalog.find: a few stats, not a look at every tool, when
   * nothing changed).
   */
  async get(name: string, uname?: string): Promise<ToolEntry | undefined> {
    const file = await this.catalog.find(name);
    if (file) return file;
    const known = (await this.survey(false, uname)).tools.get(name);
    if (known || !name.startsWith("mcp__")) return known;
    return (await this.survey(true, uname)).tools.get(name);
  }

  /** What cannot be used; with `uname`, that agent's own servers' too. */
  async broken(uname?: string): Promise<readonly BrokenTool[]> {
    return (await this.survey(true, uname)).broken;
  }

  private async survey(
    wait: boolean,
    uname: string | undefined,
  ): Promise<{ tools: ReadonlyMap<string, ToolEntry>; broken: BrokenTool[] }> {
    const shared = await this.shared(wait);
    if (uname === undefined || !this.own?.has(uname)) return shared;
    const own = this.own.survey(uname);
    const tools = new Map(shared.tools);
    const broken = [...shared.broken, ...own.broken];
    for (const [name, entry] of own.tools) {
      const taken = tools.get(name);
      if (taken)
        broken.push({
          file: entry.link.config.source,
          reason: `its tool ${name} is not offered: the name is ${isMcpTool(taken) ? `a tool of ${taken.link.config.source}` : taken.file}`,
        });
      else tools.set(name, entry);
    }
    return { tools, broken };
  }

  /** The tools every agent is offered: the tools path's and mcp.json's. */
  private async shared(
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
