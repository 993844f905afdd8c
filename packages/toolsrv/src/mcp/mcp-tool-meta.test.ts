import { describe, expect, it } from "vitest";
import type { McpServerConfig } from "./mcp-config.js";
import { mcpToolMeta, mcpToolName } from "./mcp-tool-meta.js";

const server: McpServerConfig = {
  kind: "http",
  name: "docs",
  source: "mcp.json: mcpServers.docs",
  url: new URL("https://example.com/mcp"),
  headers: {},
  callTimeoutMs: 30_000,
  startupTimeoutMs: 60_000,
};

describe("MCP tools as Ollie tools", () => {
  it("names them mcp__SERVER__TOOL in the characters providers accept, at most 64", () => {
    expect(mcpToolName("fs", "read_file")).toBe("mcp__fs__read_file");
    expect(mcpToolName("web", "search.v2 beta")).toBe("mcp__web__search_v2_beta");
    const long = mcpToolName("server", "x".repeat(80));
    const other = mcpToolName("server", `${"x".repeat(79)}y`);
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
    expect(other).not.toBe(long);
  });

  it("keeps the schema and description, and runs read-only tools as parallel reads", () => {
    const inputSchema = { type: "object" as const, properties: { q: { type: "string" } }, required: ["q"] };
    expect(
      mcpToolMeta(server, {
        name: "search",
        description: "Search the docs",
        inputSchema,
        annotations: { readOnlyHint: true },
      }),
    ).toEqual({
      name: "mcp__docs__search",
      description: "Search the docs",
      parameters: inputSchema,
      parallelRead: true,
      tier: "hot",
      timeoutMs: 30_000,
    });
    const untitled = mcpToolMeta(server, { name: "poke", inputSchema: { type: "object" } });
    expect(untitled).toMatchObject({ description: "poke from the MCP server docs", parallelRead: false });
  });
});
