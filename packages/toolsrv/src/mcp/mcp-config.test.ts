// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is mcp.json's own syntax, expanded by toolsrv
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseAgentMcpServers, readMcpConfig } from "./mcp-config.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const configOf = (text: string, env: NodeJS.ProcessEnv = {}) => {
  const file = join(dir, `mcp-${n++}.json`);
  writeFileSync(file, text);
  return { file, config: readMcpConfig(file, env) };
};

describe("readMcpConfig", () => {
  it("reads the format other MCP clients write, keeping keys of theirs it does not know", async () => {
    const { config } = configOf(
      JSON.stringify({
        mcpServers: {
          fs: { command: "npx", args: ["-y", "server", "${HOME}/src"], env: { TOKEN: "${TOKEN:-none}" } },
          web: {
            url: "https://example.com/mcp",
            headers: { Authorization: "Bearer ${TOKEN}" },
            alwaysAllow: [],
          },
          off: { command: "x", disabled: true },
        },
        globalShortcut: "Ctrl+Space",
      }),
      { HOME: "/home/me", TOKEN: "abc" },
    );
    const { servers, broken } = await config;
    expect(broken).toEqual([]);
    expect(servers).toMatchObject([
      {
        kind: "stdio",
        name: "fs",
        command: "npx",
        args: ["-y", "server", "/home/me/src"],
        env: { TOKEN: "abc" },
      },
      { kind: "http", name: "web", headers: { Authorization: "Bearer abc" }, callTimeoutMs: 120_000 },
    ]);
    expect(servers[1]).toMatchObject({ url: new URL("https://example.com/mcp") });
  });

  it("takes a default for an unset variable, and refuses one with none", async () => {
    const { config } = configOf(
      JSON.stringify({ mcpServers: { a: { command: "${BIN:-/usr/bin/srv}" }, b: { command: "${NOPE}" } } }),
    );
    const { servers, broken } = await config;
    expect(servers).toMatchObject([{ name: "a", command: "/usr/bin/srv" }]);
    expect(broken).toEqual([
      {
        file: expect.stringMatching(/: mcpServers\.b$/),
        reason: expect.stringContaining("${NOPE} is not set"),
      },
    ]);
  });

  it("reports each wrong entry with its place, and uses the others", async () => {
    const { file, config } = configOf(
      `{
  "mcpServers": {
    "good": { "command": "srv", "timeout": 5, "startupTimeout": 2 },
    "bad": { "command": "srv", "args": "--flag" },
    "old": { "type": "sse", "url": "https://example.com/sse" },
    "no way": { "command": "srv" },
    "jail": { "command": "srv", "sandbox": { "filesystem": { "rw": "/" } } }
  }
}`,
    );
    const { servers, broken } = await config;
    expect(servers).toMatchObject([{ name: "good", callTimeoutMs: 5000, startupTimeoutMs: 2000 }]);
    expect(broken.map((b) => `${b.file}: ${b.reason}`)).toEqual([
      expect.stringMatching(new RegExp(`^${file}:4:\\d+: mcpServers\\.bad\\.args: `)),
      `${file}: mcpServers.old: the HTTP+SSE transport is deprecated in MCP and not supported: use Streamable HTTP`,
      expect.stringContaining("mcpServers.no way: a server's name is 1 to 32 letters"),
      expect.stringMatching(/mcpServers\.jail\.sandbox.*filesystem\.rw/),
    ]);
  });

  it("says where a file that is not JSON goes wrong, and treats a missing file as no servers", async () => {
    const { file, config } = configOf('{ "mcpServers": { "a": { "command": "x", } } }');
    expect(await config).toEqual({
      servers: [],
      broken: [
        {
          file: expect.stringMatching(new RegExp(`^${file}:1:\\d+$`)),
          reason: expect.stringContaining("not JSON"),
        },
      ],
    });
    expect(await readMcpConfig(join(dir, "absent.json"), {})).toEqual({ servers: [], broken: [] });
  });
});

describe("parseAgentMcpServers", () => {
  it("takes mcp.json's entries as given, expanding nothing, and refuses what would widen the agent's sandbox", () => {
    const { servers, broken } = parseAgentMcpServers(
      {
        fs: { command: "npx", args: ["-y", "server", "${HOME}"], env: { TOKEN: "${TOKEN}" } },
        web: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" } },
        here: { command: "srv", cwd: "/" },
        wide: { command: "srv", sandbox: { filesystem: { rw: ["/"] } } },
        typo: { comand: "srv" },
      },
      "a1's own MCP servers",
    );
    expect(servers).toMatchObject([
      { kind: "stdio", name: "fs", args: ["-y", "server", "${HOME}"], env: { TOKEN: "${TOKEN}" } },
      { kind: "http", name: "web", headers: { Authorization: "Bearer x" } },
    ]);
    expect(servers[0]).not.toHaveProperty("sandbox");
    expect(broken).toEqual([
      {
        file: "a1's own MCP servers: mcpServers.here",
        reason:
          "cwd cannot be set for an agent's own server: it runs in the agent's directory, under the agent's sandbox",
      },
      {
        file: "a1's own MCP servers: mcpServers.wide",
        reason: expect.stringMatching(/^sandbox cannot be set/),
      },
      {
        file: "a1's own MCP servers: mcpServers.typo",
        reason: expect.stringContaining("mcpServers.typo.command"),
      },
    ]);
    expect(() => parseAgentMcpServers(["srv"], "a1")).toThrow("mcpServers must be an object");
  });
});
