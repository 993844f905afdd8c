/**
 * The one uname that may set an agent's own MCP servers (through the `agentmcp` file): the daemon that dials
 * toolsrv for its agents, which attaches as it beside its attach as the agent, on the same connection. Under
 * toolsrv's keys only the holder of toolsrv's key attaches as anyone but the owner; an agent attached as
 * itself — with a key of its own, or on a toolsrv without keys — is refused, so an agent cannot start
 * commands of its choosing by naming them as a server.
 */
export const DAEMON_UNAME = "ollie-daemon";

/** An MCP server toolsrv starts for the agent and talks to over its standard input and output. */
export interface McpStdioServerEntry {
  type?: "stdio";
  /** The program; a name without `/` is looked up in the agent's PATH. */
  command: string;
  args?: string[];
  /** Added to the agent's environment. */
  env?: Record<string, string>;
  /** How long one call may run, in seconds (default 120). */
  timeout?: number;
  /** How long starting and listing its tools may take, in seconds (default 60). */
  startupTimeout?: number;
}

/** An MCP server already running somewhere, reached over Streamable HTTP. */
export interface McpHttpServerEntry {
  type?: "http" | "streamable-http" | "streamableHttp";
  url: string;
  headers?: Record<string, string>;
  timeout?: number;
  startupTimeout?: number;
}

/**
 * One server as mcp.json's `mcpServers` has it (an editor's ACP server, its `env` and `headers` lists made
 * objects). mcp.json's `cwd`, `sandbox` and `shared` are not for an agent's own server: it runs in the
 * agent's directory, under the agent's sandbox, for that agent alone.
 */
export type McpServerEntry = McpStdioServerEntry | McpHttpServerEntry;

/** What the daemon writes to `agentmcp`: an agent's own servers, and where and with what they run. */
export interface AgentMcpRequest {
  /** The agent whose servers they are. */
  agent: string;
  /** The agent's working directory: where its stdio servers start, and what its policy's `{CWD}` is. */
  cwd: string;
  /** The agent's session environment, as its calls carry it. */
  env?: Record<string, string>;
  /** By name, as in mcp.json (checked server by server: one that is wrong is reported, not the request). */
  mcpServers: Record<string, McpServerEntry>;
}

/** How one of an agent's own servers stands. */
export interface AgentMcpServerState {
  name: string;
  /** `starting`, `ready`, `restarting`, `broken` or `stopped`. */
  state: string;
  /** Its tools' names (`mcp__SERVER__TOOL`) that the agent is offered. */
  tools: string[];
  /** Why it is broken or restarting. */
  problem: string | null;
}

/** What reading `agentmcp` back answers, once each server's first start has ended (or 10 s have passed). */
export interface AgentMcpStatus {
  agent: string;
  servers: AgentMcpServerState[];
  /** Entries that cannot be used, servers that do not run, tools that cannot be offered: file and reason. */
  broken: Array<{ file: string; reason: string }>;
}
