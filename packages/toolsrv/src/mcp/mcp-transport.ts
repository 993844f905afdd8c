import { mkdir } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  expandPolicy,
  type SandboxExit,
  type SandboxPolicy,
  startSandboxed,
  withLayer,
} from "@ollie/sandbox";
import { NODE_PREFIX } from "../exec/node-prefix.js";
import type { McpServerConfig, StdioServerConfig } from "./mcp-config.js";
import { SandboxedStdioTransport } from "./sandboxed-stdio.js";

/** Where and how a server is started: toolsrv's sandbox, and the environment it starts from. */
export interface TransportContext {
  policy: SandboxPolicy;
  protect?: readonly string[];
  protectWrites?: readonly string[];
  /** The environment a stdio server starts with, before its own `env`; also what `{HOME}`, `{TMPDIR}`… mean. */
  env: Record<string, string>;
  /** Where a stdio server without a `cwd` gets a working directory of its own. */
  workDir: string;
  /**
   * Whose process and memory limits a stdio server shares: its agent's uname for an agent's own server, a
   * group of its own for a shared one (see SandboxStartOptions.group).
   */
  group?: string;
}

/** A transport ready to connect, with the process behind it for a stdio server. */
export interface OpenedTransport {
  transport: Transport;
  /** The sandbox launcher's process, which the server runs under. */
  pid?: number;
  /** How the process ended, once it has and its standard error is read to the end. */
  exit?: Promise<SandboxExit>;
  /** Why the transport ended the server itself, if it did. */
  endReason?: () => string | undefined;
}

/** Starts a stdio server under the sandbox, or makes the transport to an HTTP one. */
export async function openTransport(
  config: McpServerConfig,
  context: TransportContext,
  stderr: (chunk: Buffer) => void,
): Promise<OpenedTransport> {
  if (config.kind === "http")
    return {
      transport: new StreamableHTTPClientTransport(config.url, { requestInit: { headers: config.headers } }),
    };
  const cwd = config.cwd ?? join(context.workDir, config.name);
  if (config.cwd === undefined) await mkdir(cwd, { recursive: true, mode: 0o700 });
  const child = await startSandboxed(config.command, config.args, {
    policy: serverPolicy(config, context, cwd),
    cwd,
    env: { ...context.env, ...config.env },
    ...(context.protect && { protect: context.protect }),
    ...(context.protectWrites && { protectWrites: context.protectWrites }),
    ...(context.group !== undefined && { group: context.group }),
  });
  child.stderr.on("data", stderr);
  const stderrRead = new Promise((resolve) => child.stderr.once("close", resolve));
  const transport = new SandboxedStdioTransport(child, `the MCP server ${config.name}`);
  return {
    transport,
    endReason: () => transport.endReason,
    pid: child.pid,
    exit: Promise.all([child.exit, stderrRead]).then(([exit]) => exit),
  };
}

/**
 * toolsrv's policy with read-and-execute on Node and on the command itself, then the server's own layer,
 * expanded for its directory and the environment it starts from — not its own `env`, whose `TMPDIR` or
 * `HOME` must not quietly widen what the policy grants.
 */
function serverPolicy(config: StdioServerConfig, context: TransportContext, cwd: string): SandboxPolicy {
  const rox = [NODE_PREFIX, ...(isAbsolute(config.command) ? [config.command] : [])];
  const base = withLayer(context.policy, { filesystem: { rox } }, `mcp server ${config.name}`);
  const layered = config.sandbox ? withLayer(base, config.sandbox, `${config.source}.sandbox`) : base;
  return expandPolicy(layered, { cwd, env: context.env });
}
