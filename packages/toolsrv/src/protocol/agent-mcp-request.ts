import { z } from "zod";

/**
 * What the daemon writes to `agentmcp` (an AgentMcpRequest), as toolsrv checks it: apart from the types,
 * so the client, which writes it, loads no zod.
 */
export const agentMcpRequestSchema = z.strictObject({
  /** The agent whose servers they are. */
  agent: z.string().min(1),
  /** The agent's working directory: where its stdio servers start, and what its policy's `{CWD}` is. */
  cwd: z.string().startsWith("/", "cwd must be an absolute path"),
  /** The agent's session environment, as its calls carry it. */
  env: z.record(z.string(), z.string()).default({}),
  /** By name, as in mcp.json (checked server by server: one that is wrong is reported, not the request). */
  mcpServers: z.record(z.string(), z.unknown()),
});
