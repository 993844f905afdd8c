import type { SandboxPolicy } from "@ollie/sandbox";
import type { VirtualTree } from "@ollie/virtfs";
import { BypassBroker } from "../broker/bypass-broker.js";
import { type BypassPolicy, EMPTY_BYPASS_POLICY } from "../broker/bypass-policy.js";
import { ToolCatalog } from "../catalog/tool-catalog.js";
import { timingRequested } from "../exec/call-timing.js";
import { AgentMcpServers } from "../mcp/agent-mcp-servers.js";
import { McpBridge } from "../mcp/mcp-bridge.js";
import { bypassTree } from "../namespace/bypass-tree.js";
import { toolTree } from "../namespace/tool-tree.js";
import { AgentToolSets } from "./agent-tools.js";
import { OwnMcp } from "./own-mcp.js";
import { ProcTable } from "./proc-table.js";
import { ToolService } from "./tool-service.js";
import { ToolSources } from "./tool-sources.js";

export interface ToolServerOptions {
  /** Directories searched for tools, in order. */
  toolsPath: readonly string[];
  /** The sandbox every tool runs under. */
  policy: SandboxPolicy;
  /**
   * The policy's name, as toolsrv's `--sandbox NAME` chose it: on each call's span as `ollie.sandbox.policy`
   * (default `default`).
   */
  policyName?: string;
  /** The human who owns the tree: the only one who may approve bypass requests. */
  owner: string;
  /** The tools an agent starts with until it says otherwise (default: client_9p). */
  defaultTools?: readonly string[];
  bypass?: BypassPolicy;
  /** Output kept per call (default 1 MiB). */
  maxOutputBytes?: number;
  /** Where log lines go (bypass decisions). */
  log?: (line: string) => void;
  /** Variables every tool gets unless the call's session environment sets them. */
  baseEnv?: Record<string, string>;
  /**
   * Paths no tool may reach, such as toolsrv's own key files: a call whose policy, expanded for its cwd and
   * environment, would grant one, a directory holding one or a path inside one fails without running.
   */
  protect?: readonly string[];
  /**
   * Paths tools may read and run but never write, such as toolsrv's own code where it is not installed
   * read-only: a call whose policy would grant writing one, a directory holding one or a path inside one
   * fails without running.
   */
  protectWrites?: readonly string[];
  /**
   * How many background processes (calls run detached: a tool's `background` argument set, or `detach`)
   * one agent may have running at once; a call past it is refused (default 16).
   */
  maxBackground?: number;
  /** MCP servers whose tools are offered as `mcp__SERVER__TOOL` (none when absent). */
  mcp?: McpOptions;
  /**
   * Return with each call's result where it spent its time inside toolsrv (`timing`, phase by phase in
   * ms). Default: on when OLLIE_TOOLSRV_TIMING is set (and not 0); off, it costs nothing.
   */
  timing?: boolean;
}

/** Where the MCP servers are defined, and what they start with. */
export interface McpOptions {
  /** mcp.json: `{"mcpServers": {NAME: {command, args, env} | {url, headers}}}`; a missing file is no servers. */
  file: string;
  /** Where a stdio server without a `cwd` gets a working directory of its own (`DIR/NAME`). */
  workDir: string;
  /** The environment every stdio server starts with, before its own `env` (default: `baseEnv`). */
  env?: Record<string, string>;
  /** Where `${VAR}` in mcp.json is looked up (default: this process's environment). */
  variables?: NodeJS.ProcessEnv;
  /** Names toolsrv in MCP's initialize (default: ollie-toolsrv). */
  clientInfo?: { name: string; version: string };
}

/** How toolsrv names itself in MCP's initialize unless told otherwise. */
const CLIENT_INFO = { name: "ollie-toolsrv", version: "1" };

/** toolsrv without its transport: the namespace to serve, and what shuts it down. */
export interface ToolServer {
  readonly tree: VirtualTree;
  readonly service: ToolService;
  readonly broker: BypassBroker;
  /** Kills every running tool process and stops the MCP servers, and waits for them. */
  close(): Promise<void>;
}

export function createToolServer(options: ToolServerOptions): ToolServer {
  const catalog = new ToolCatalog(options.toolsPath);
  const procs = new ProcTable();
  const agents = new AgentToolSets(options.defaultTools ?? ["client_9p"]);
  const mcp = options.mcp && startMcp(options, options.mcp, () => agents.bumpAll());
  let ownToolsChanged = (_uname: string) => {};
  const own: AgentMcpServers = new AgentMcpServers({
    context: () => ({
      policy: service.currentPolicy(),
      clientInfo: options.mcp?.clientInfo ?? CLIENT_INFO,
      ...(options.protect && { protect: options.protect }),
      ...(options.protectWrites && { protectWrites: options.protectWrites }),
      ...(options.log && { log: options.log }),
    }),
    onToolsChanged: (uname) => ownToolsChanged(uname),
  });
  const service: ToolService = new ToolService(new ToolSources(catalog, mcp, own), agents, procs, {
    policy: options.policy,
    ...(options.policyName !== undefined && { policyName: options.policyName }),
    ...(options.maxOutputBytes !== undefined && { maxOutputBytes: options.maxOutputBytes }),
    ...(options.baseEnv && { baseEnv: options.baseEnv }),
    ...(options.protect && { protect: options.protect }),
    ...(options.protectWrites && { protectWrites: options.protectWrites }),
    ...(options.maxBackground !== undefined && { maxBackground: options.maxBackground }),
    timing: options.timing ?? timingRequested(process.env),
  });
  const broker = new BypassBroker(options.bypass ?? EMPTY_BYPASS_POLICY, options.log);
  const ownMcp = new OwnMcp(service, own);
  ownToolsChanged = (uname) => {
    ownMcp.loadNew(uname).catch((error: unknown) => options.log?.(`mcp: ${(error as Error).message}`));
  };
  const tree = toolTree(service, {
    owner: options.owner,
    ownMcp,
    extra: [bypassTree(broker, options.owner)],
  });
  return {
    tree,
    service,
    broker,
    close: async () => {
      await Promise.all([procs.killAll(), mcp?.close(), own.close()]);
    },
  };
}

function startMcp(options: ToolServerOptions, mcp: McpOptions, onToolsChanged: () => void): McpBridge {
  const bridge = new McpBridge({
    file: mcp.file,
    workDir: mcp.workDir,
    env: mcp.env ?? options.baseEnv ?? {},
    variables: mcp.variables ?? process.env,
    clientInfo: mcp.clientInfo ?? CLIENT_INFO,
    policy: options.policy,
    ...(options.protect && { protect: options.protect }),
    ...(options.protectWrites && { protectWrites: options.protectWrites }),
    ...(options.log && { log: options.log }),
    onToolsChanged,
  });
  // Servers start with toolsrv, not at the first look, so their tools are listed by the time an agent asks.
  void bridge.survey(false).catch((error: unknown) => options.log?.(`mcp: ${(error as Error).message}`));
  return bridge;
}
