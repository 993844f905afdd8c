import type { BrokenTool, ToolMeta } from "../metadata/tool-meta.js";
import { configStamp, readMcpConfig } from "./mcp-config.js";
import { type LinkContext, type LinkState, McpLink } from "./mcp-link.js";
import { mcpToolMeta } from "./mcp-tool-meta.js";

/** A tool of an MCP server, as an Ollie tool. */
export interface McpToolEntry {
  meta: ToolMeta;
  link: McpLink;
  /** Its name on the server. */
  tool: string;
}

/** What the namespace's `mcp` file says of a server. */
export interface McpServerStatus {
  name: string;
  state: LinkState;
  transport: "stdio" | "http";
  pid: number | null;
  restarts: number;
  tools: number;
  problem: string | null;
  stderr: string;
}

export interface McpBridgeOptions extends Omit<LinkContext, "onToolsChanged"> {
  /** mcp.json. */
  file: string;
  /** Where `${VAR}` in mcp.json is looked up. */
  variables: NodeJS.ProcessEnv;
  /** Any server's tools changed. */
  onToolsChanged: () => void;
}

/**
 * The MCP servers of mcp.json as a source of tools: each server started once for all agents, its tools
 * named `mcp__SERVER__TOOL`. Edits of the file are followed at the next look: servers added start, servers
 * removed stop, servers whose entry changed start again.
 */
export class McpBridge {
  private readonly links = new Map<string, { link: McpLink; definition: string }>();
  private configBroken: BrokenTool[] = [];
  private stamp: string | undefined | null = null;
  private refreshing: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: McpBridgeOptions) {}

  /** The servers' tools, by Ollie name, once every server's first start has ended. */
  async tools(): Promise<Map<string, McpToolEntry>> {
    return (await this.survey()).tools;
  }

  /** Entries of mcp.json that cannot be used, servers that do not run, and tools that cannot be named. */
  async broken(): Promise<BrokenTool[]> {
    return (await this.survey()).broken;
  }

  async status(): Promise<McpServerStatus[]> {
    await this.refresh();
    return [...this.links.values()].map(({ link }) => ({
      name: link.name,
      state: link.state.get(),
      transport: link.config.kind,
      pid: link.pid ?? null,
      restarts: link.restarts,
      tools: link.tools.length,
      problem: link.problem ?? null,
      stderr: link.stderrTail(),
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.refreshing;
    await Promise.all([...this.links.values()].map(({ link }) => link.close()));
    this.links.clear();
  }

  private async survey(): Promise<{ tools: Map<string, McpToolEntry>; broken: BrokenTool[] }> {
    await this.refresh();
    const links = [...this.links.values()].map((l) => l.link);
    await Promise.all(links.map((l) => l.firstAttempt));
    const tools = new Map<string, McpToolEntry>();
    const broken = [...this.configBroken];
    for (const link of links) {
      if (link.state.get() === "broken" && link.tools.length === 0)
        broken.push({ file: link.config.source, reason: link.problem ?? "not running" });
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

  /** Re-reads mcp.json if it changed since the last look. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.reread().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async reread(): Promise<void> {
    if (this.closed) return;
    const stamp = await configStamp(this.options.file);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    const config = await readMcpConfig(this.options.file, this.options.variables);
    this.configBroken = config.broken;
    const wanted = new Map(config.servers.map((s) => [s.name, s]));
    const stopping: Promise<void>[] = [];
    for (const [name, { link, definition }] of this.links) {
      const next = wanted.get(name);
      if (next && JSON.stringify(next) === definition) {
        wanted.delete(name);
        continue;
      }
      this.links.delete(name);
      stopping.push(link.close());
    }
    await Promise.all(stopping);
    const { file: _file, variables: _variables, ...context } = this.options;
    for (const server of wanted.values())
      this.links.set(server.name, { link: new McpLink(server, context), definition: JSON.stringify(server) });
    if (stopping.length > 0) this.options.onToolsChanged();
  }
}
