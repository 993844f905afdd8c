import { z } from "zod";

/**
 * A session's own MCP servers (an editor's, given through `ollie acp`), in mcp.json's `mcpServers` form:
 * a server toolsrv starts (`command`, `args`, `env`) or one it reaches over Streamable HTTP (`url`,
 * `headers`). toolsrv runs them for the session's agents alone, in the session's sandbox.
 */
export type SessionMcpServers = z.infer<typeof sessionMcpServersSchema>;

const stdioServer = z.strictObject({
  command: z.string().min(1, "needs a command"),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});

const httpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: "an http or https URL" }),
  headers: z.record(z.string(), z.string()).optional(),
});

/** Server names become tool names (`mcp__NAME__TOOL`): letters, digits, `_` and `-`. */
export const sessionMcpServersSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_-]+$/, "a server name is letters, digits, '_' and '-'"),
  z.union([stdioServer, httpServer], { error: "a server is {command, args, env} or {url, headers}" }),
);
