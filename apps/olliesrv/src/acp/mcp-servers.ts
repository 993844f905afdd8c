import { type McpServer, RequestError } from "@agentclientprotocol/sdk";
import type { McpServerSpec } from "@ollie/client";

const pairs = (list: ReadonlyArray<{ name: string; value: string }>) =>
  Object.fromEntries(list.map(({ name, value }) => [name, value]));

/**
 * The editor's MCP servers as the session's own (see SessionSpec.mcpServers): stdio servers and HTTP ones
 * (Streamable HTTP) are taken; SSE, which toolsrv's bridge does not speak, is refused, naming the server.
 * Two servers of one name are refused too: the name is in their tools' names.
 */
export function sessionMcpServers(servers: readonly McpServer[]): Record<string, McpServerSpec> | undefined {
  if (servers.length === 0) return undefined;
  const taken: Record<string, McpServerSpec> = {};
  for (const server of servers) {
    if (server.name in taken)
      throw RequestError.invalidParams(
        { mcpServer: server.name },
        `two MCP servers are named ${server.name}`,
      );
    if ("type" in server && server.type === "sse")
      throw RequestError.invalidParams(
        { mcpServer: server.name },
        `the MCP server ${server.name} speaks SSE: ollie takes stdio and HTTP (Streamable HTTP) servers`,
      );
    taken[server.name] =
      "url" in server
        ? { url: server.url, ...(server.headers.length > 0 && { headers: pairs(server.headers) }) }
        : {
            command: server.command,
            ...(server.args.length > 0 && { args: server.args }),
            ...(server.env.length > 0 && { env: pairs(server.env) }),
          };
  }
  return taken;
}
