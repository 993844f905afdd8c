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

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/** Server names become tool names (`mcp__NAME__TOOL`): letters, digits, `_` and `-`. */
export const sessionMcpServersSchema = z
  .record(
    z.string(),
    z.union([stdioServer, httpServer], { error: "a server is {command, args, env} or {url, headers}" }),
  )
  .check((ctx) => {
    for (const name of Object.keys(ctx.value))
      if (!SERVER_NAME.test(name))
        ctx.issues.push({
          code: "custom",
          input: name,
          path: [name],
          message: "a server name is letters, digits, '_' and '-'",
        });
  });
