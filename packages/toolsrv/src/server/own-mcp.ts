import { describeIssues, formatProblems } from "@ollie/config-file";
import { type AgentMcpServers, ownSource } from "../mcp/agent-mcp-servers.js";
import { parseAgentMcpServers } from "../mcp/mcp-config.js";
import { mcpToolName } from "../mcp/mcp-tool-meta.js";
import type { AgentMcpStatus } from "../protocol/agent-mcp.js";
import { agentMcpRequestSchema } from "../protocol/agent-mcp-request.js";
import type { ToolService } from "./tool-service.js";
import { isMcpTool, isOwnMcpTool } from "./tool-sources.js";

/**
 * Agents' own MCP servers as the namespace sets them: a request checked and its servers started for the
 * agent, and their tools loaded for it — the editor that gave them asked for them — the first time each is
 * offered (at the set, or when a server that was still starting lists them).
 */
export class OwnMcp {
  constructor(
    private readonly service: ToolService,
    private readonly own: AgentMcpServers,
  ) {}

  /**
   * Replaces an agent's own servers with those of `raw` (an AgentMcpRequest), held by `holder`; answers how
   * they stand once their first starts have ended. Throws for a request that is not one; a server entry
   * that is wrong, or a server that does not start, is reported in the answer's `broken`.
   */
  async set(raw: unknown, holder: object): Promise<AgentMcpStatus> {
    const parsed = agentMcpRequestSchema.safeParse(raw);
    if (!parsed.success)
      throw new Error(formatProblems(undefined, describeIssues(agentMcpRequestSchema, parsed.error.issues)));
    const { agent, cwd, env, mcpServers } = parsed.data;
    const config = parseAgentMcpServers(mcpServers, ownSource(agent));
    await this.own.set(agent, holder, config, {
      cwd,
      env: { ...this.service.baseEnv, ...env, OLLIE_UNAME: agent },
    });
    await this.loadNew(agent);
    return this.status(agent);
  }

  /** The open that set an agent's servers ended: they stop (unless a newer set replaced them). */
  release(agent: string, holder: object): Promise<void> {
    return this.own.release(agent, holder);
  }

  /**
   * An agent's own servers' tools changed: those offered for the first time are loaded for it, and its
   * revision moves either way, so it lists its tools again.
   */
  async loadNew(agent: string): Promise<void> {
    const tools = await this.service.sources.tools(agent);
    const offered = [...tools.values()].filter((t) => isOwnMcpTool(t) && t.link.agent === agent);
    const fresh = this.own.firstLoads(
      agent,
      offered.map((t) => t.meta.name),
    );
    const set = this.service.agents.of(agent);
    if (set.load(fresh).length === 0) set.bump();
  }

  private async status(agent: string): Promise<AgentMcpStatus> {
    const tools = await this.service.sources.tools(agent);
    const broken = (await this.service.sources.broken(agent)).filter((b) =>
      b.file.startsWith(ownSource(agent)),
    );
    return {
      agent,
      servers: this.own.statesOf(agent).map(({ link, state, problem }) => ({
        name: link.name,
        state,
        tools: link.tools
          .map((t) => mcpToolName(link.name, t.name))
          .filter((name) => {
            const entry = tools.get(name);
            return entry !== undefined && isMcpTool(entry) && entry.link === link;
          }),
        problem,
      })),
      broken,
    };
  }
}
