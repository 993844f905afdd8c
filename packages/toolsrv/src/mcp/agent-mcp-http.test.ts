import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { NinepServer } from "@ollie/ninep";
import { resolvePolicy } from "@ollie/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { ToolsrvConn, type ToolsrvConnOptions } from "../client/toolsrv-conn.js";
import { createToolServer } from "../server/tool-server.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsrv-agent-mcp-http-")));
mkdirSync(join(root, "work"));

// A Streamable HTTP MCP server someone else runs (stateless: a server of the SDK's for each request), which
// notes the headers each request came with.
const seen: IncomingHttpHeaders[] = [];
const http = createServer(async (request, response) => {
  seen.push(request.headers);
  const server = new Server({ name: "web", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: "hello", description: "Says hello.", inputSchema: { type: "object", properties: {} } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => ({
    content: [{ type: "text", text: "hello over http" }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  response.on("close", () => void server.close());
  await transport.handleRequest(request, response);
});
await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

const server = createToolServer({
  toolsPath: [],
  policy: await resolvePolicy({ env: { HOME: root, XDG_CONFIG_HOME: join(root, "no-config") } }),
  owner: "glenda",
  defaultTools: [],
  baseEnv: { PATH: "/usr/bin:/bin" },
});
const address = `unix!${join(root, "toolsrv.sock")}`;
const ninep = new NinepServer(server.tree);
await ninep.listen(address);
const dial = (uname: string, mcpServers?: ToolsrvConnOptions["mcpServers"]) =>
  ToolsrvConn.dial({ address, uname, cwd: join(root, "work"), ...(mcpServers && { mcpServers }) });

afterAll(async () => {
  await server.close();
  await ninep.close();
  http.close();
  rmSync(root, { recursive: true, force: true });
});

describe("an agent's own MCP server over Streamable HTTP", () => {
  it("is reached with its headers, its tools for that agent alone", async () => {
    const conn = await dial("agent1", { web: { url, headers: { "X-Agent": "agent1's editor" } } });
    const other = await dial("agent2");
    try {
      expect(conn.mcpStatus?.servers).toEqual([
        { name: "web", state: "ready", tools: ["mcp__web__hello"], problem: null },
      ]);
      const result = await conn.call("mcp__web__hello", {}, new AbortController().signal);
      expect(result).toEqual({ output: "hello over http" });
      expect(seen.at(-1)?.["x-agent"]).toBe("agent1's editor");
      expect((await other.list()).map((t) => t.name)).not.toContain("mcp__web__hello");
    } finally {
      await conn.close();
      await other.close();
    }
  });
});
