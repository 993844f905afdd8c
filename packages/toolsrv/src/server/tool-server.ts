import type { SandboxPolicy } from "@ollie/sandbox";
import type { VirtualTree } from "@ollie/virtfs";
import { BypassBroker } from "../broker/bypass-broker.js";
import { type BypassPolicy, EMPTY_BYPASS_POLICY } from "../broker/bypass-policy.js";
import { ToolCatalog } from "../catalog/tool-catalog.js";
import { bypassTree } from "../namespace/bypass-tree.js";
import { toolTree } from "../namespace/tool-tree.js";
import { AgentToolSets } from "./agent-tools.js";
import { ProcTable } from "./proc-table.js";
import { ToolService } from "./tool-service.js";

export interface ToolServerOptions {
  /** Directories searched for tools, in order. */
  toolsPath: readonly string[];
  /** The sandbox every tool runs under. */
  policy: SandboxPolicy;
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
}

/** toolsrv without its transport: the namespace to serve, and what shuts it down. */
export interface ToolServer {
  readonly tree: VirtualTree;
  readonly service: ToolService;
  readonly broker: BypassBroker;
  /** Kills every running tool process and waits for them. */
  close(): Promise<void>;
}

export function createToolServer(options: ToolServerOptions): ToolServer {
  const catalog = new ToolCatalog(options.toolsPath);
  const procs = new ProcTable();
  const service = new ToolService(catalog, new AgentToolSets(options.defaultTools ?? ["client_9p"]), procs, {
    policy: options.policy,
    ...(options.maxOutputBytes !== undefined && { maxOutputBytes: options.maxOutputBytes }),
    ...(options.baseEnv && { baseEnv: options.baseEnv }),
    ...(options.protect && { protect: options.protect }),
  });
  const broker = new BypassBroker(options.bypass ?? EMPTY_BYPASS_POLICY, options.log);
  const tree = toolTree(service, { owner: options.owner, extra: [bypassTree(broker, options.owner)] });
  return {
    tree,
    service,
    broker,
    close: async () => {
      await procs.killAll();
    },
  };
}
