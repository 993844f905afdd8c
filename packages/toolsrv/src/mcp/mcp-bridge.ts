import type { BrokenTool } from "../metadata/tool-meta.js";
import { linkStatus, type McpServerStatus, type McpToolEntry, surveyLinks } from "./links-survey.js";
import { configStamp, readMcpConfig } from "./mcp-config.js";
import type { LinkContext, McpLink } from "./mcp-link.js";

/** The agent a call is for: where its own server (of an entry with `"shared": false`) starts. */
export interface McpAgent {
  uname: string;
  cwd: string;
  /** The environment its tools get. */
  env: Record<string, string>;
}

/**
 * How long after a server is added a look at the tools waits for its first start: the tools of one still
 * starting after that appear once it has (the agents' revisions move then), and no look waits for it.
 */
const FIRST_LOOK_MS = 10_000;

/** An agent's own server that has had no call for this long is stopped (its next call starts it again). */
const AGENT_IDLE_MS = 10 * 60_000;

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
  /** Agents' own servers, by server name and uname. */
  private readonly agentLinks = new Map<string, McpLink>();
  private sweeper: NodeJS.Timeout | undefined;
  /** Loaded with the first server: the MCP SDK costs a toolsrv without servers nothing at start. */
  private Link: typeof McpLink | undefined;
  private configBroken: BrokenTool[] = [];
  private stamp: string | undefined | null = null;
  private refreshing: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: McpBridgeOptions) {}

  /**
   * The server a call goes to: the shared one, or for an entry with `"shared": false` the agent's own,
   * started at its first call in the agent's directory with its tools' environment, so the session's policy
   * applies to it as to them.
   */
  linkFor(entry: McpToolEntry, agent: McpAgent): McpLink {
    const config = entry.link.config;
    if (config.kind === "http" || config.shared) return entry.link;
    if (this.closed) throw new Error(`the MCP server ${config.name} was stopped`);
    const key = `${config.name}\0${agent.uname}`;
    let own = this.agentLinks.get(key);
    if (!own || own.state.get() === "stopped") {
      own = new this.Link!(
        { ...config, cwd: agent.cwd },
        { ...this.context(), env: agent.env, group: agent.uname, onToolsChanged: () => {} },
        agent.uname,
      );
      this.agentLinks.set(key, own);
      this.sweeper ??= setInterval(() => this.stopIdle(), AGENT_IDLE_MS / 10).unref();
    }
    return own;
  }

  async status(): Promise<McpServerStatus[]> {
    await this.refresh();
    const links = [...[...this.links.values()].map((l) => l.link), ...this.agentLinks.values()];
    return links.map(linkStatus);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    await this.refreshing;
    const links = [...[...this.links.values()].map((l) => l.link), ...this.agentLinks.values()];
    await Promise.all(links.map((link) => link.close()));
    this.links.clear();
    this.agentLinks.clear();
  }

  /**
   * The servers' tools, by Ollie name, and what cannot be used (entries of mcp.json, servers that do not
   * run, tools); with `wait`, once the first start of every server added in the last 10 s has ended (or
   * those 10 s have).
   */
  async survey(wait: boolean): Promise<{ tools: Map<string, McpToolEntry>; broken: BrokenTool[] }> {
    await this.refresh();
    const links = [...this.links.values()].map((l) => l.link);
    const now = Date.now();
    if (wait)
      await Promise.all(
        links.map((l) => Promise.race([l.firstAttempt, settle(l.createdAt + FIRST_LOOK_MS - now)])),
      );
    return surveyLinks(links, [...this.configBroken]);
  }

  private context(): LinkContext {
    const { file: _file, variables: _variables, ...context } = this.options;
    return context;
  }

  /** Stops the agents' own servers that have been idle too long. */
  private stopIdle(): void {
    const now = Date.now();
    for (const [key, link] of this.agentLinks)
      if (link.inFlight === 0 && now - link.lastUsed >= AGENT_IDLE_MS) {
        this.agentLinks.delete(key);
        void link.close();
      }
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
      for (const [key, own] of this.agentLinks)
        if (own.name === name) {
          this.agentLinks.delete(key);
          stopping.push(own.close());
        }
    }
    await Promise.all(stopping);
    if (wanted.size > 0) this.Link ??= (await import("./mcp-link.js")).McpLink;
    for (const server of wanted.values())
      this.links.set(server.name, {
        link: new this.Link!(server, { ...this.context(), group: `mcp server ${server.name}` }),
        definition: JSON.stringify(server),
      });
    if (stopping.length > 0) this.options.onToolsChanged();
  }
}

const settle = (ms: number) =>
  new Promise<void>((resolve) => {
    if (ms > 0) setTimeout(resolve, ms).unref();
    else resolve();
  });
