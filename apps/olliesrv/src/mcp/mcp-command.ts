import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { OllieClient } from "@ollie/client";
import { log } from "./log.js";
import { ollieMcpServer } from "./mcp-server.js";
import { OlliesrvLink } from "./olliesrv-link.js";

/**
 * `ollie mcp`: Ollie's sessions as an MCP server, on standard input and output, until the client closes
 * standard input; olliesrv is reached (with `reach`) at the first tool call. ollie_status answers
 * what `ollie status` prints. Returns the exit status: 0.
 */
export async function mcpCommand(reach: () => Promise<OllieClient>): Promise<number> {
  const link = new OlliesrvLink(reach);
  const server = ollieMcpServer(link);
  server.server.onerror = (error) => log(error.message);
  // The transport reads standard input but does not see it end, which is how a client tells a stdio server
  // to leave.
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  await server.connect(new StdioServerTransport());
  await ended;
  // Closing cancels the calls in flight: a running prompt stops its turn, over the link, before it closes.
  await server.close();
  await link.close();
  return 0;
}
