import { randomBytes } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hmacAuth, hmacAuthenticator, NinepClient, NinepServer, ORDWR } from "@ollie/ninep";
import { resolvePolicy } from "@ollie/sandbox";
import { processGone } from "@ollie/sandbox/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ToolsrvConn, type ToolsrvConnOptions } from "../client/toolsrv-conn.js";
import { DAEMON_UNAME } from "../protocol/agent-mcp.js";
import { createToolServer } from "../server/tool-server.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolsrv-agent-mcp-")));
const dirs = {
  tools: join(root, "tools"),
  work1: join(root, "work1"),
  work2: join(root, "work2"),
  tmp: join(root, "tmp"),
  // Granted by nothing in the policy: neither an agent's directory nor its TMPDIR.
  outside: join(root, "outside"),
};
for (const d of Object.values(dirs)) mkdirSync(d);
// In the agents' TMPDIR, which their sandbox lets them read: nothing else grants the server its script.
const PROBE = join(dirs.tmp, "probe-mcp-server.mjs");
copyFileSync(fileURLToPath(new URL("./__fixtures__/probe-mcp-server.mjs", import.meta.url)), PROBE);
const probe = { command: process.execPath, args: [PROBE] };
const WAIT = { timeout: 10_000, interval: 20 };
// An executable whose name one of a given server's tools would take.
const clash = join(dirs.tools, "mcp__clash__probe");
writeFileSync(
  clash,
  "#!/bin/sh\n# ollie:tool mcp__clash__probe\n# ollie:description The executable.\necho executable\n",
);
chmodSync(clash, 0o755);

const policy = await resolvePolicy({ env: { HOME: root, XDG_CONFIG_HOME: join(root, "no-config") } });
// toolsrv's keys as its daemon has them: the owner proves the owner's key, every other uname toolsrv's own.
const serviceKey = randomBytes(32);
const ownerKey = randomBytes(32);
const auth = hmacAuth({ keyFor: (uname) => (uname === "glenda" ? ownerKey : serviceKey) });

/** A toolsrv on a Unix socket of its own, keyed as the daemon runs it. */
async function serve(name: string) {
  const server = createToolServer({
    toolsPath: [dirs.tools],
    policy,
    owner: "glenda",
    defaultTools: [],
    baseEnv: { PATH: "/usr/bin:/bin", TMPDIR: dirs.tmp },
  });
  const address = `unix!${join(root, `${name}.sock`)}`;
  const ninep = new NinepServer(server.tree, { auth });
  await ninep.listen(address);
  return { server, address, ninep };
}

const served = await serve("main");
const opened: ToolsrvConn[] = [];
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await served.server.close();
  await served.ninep.close();
  rmSync(root, { recursive: true, force: true });
});

/** An agent's connection as the daemon dials it, with the daemon's key. */
async function dial(uname: string, more: Partial<ToolsrvConnOptions> = {}, to = served) {
  const conn = await ToolsrvConn.dial({
    address: to.address,
    uname,
    cwd: dirs.work1,
    authenticator: hmacAuthenticator(serviceKey),
    ...more,
  });
  opened.push(conn);
  return conn;
}

const signal = () => new AbortController().signal;
const call = async (conn: ToolsrvConn, tool: string, args: Record<string, unknown> = {}) =>
  conn.callRaw({ tool, args }, signal());
const probed = async (conn: ToolsrvConn, tool = "mcp__probe__probe") => {
  const result = await call(conn, tool);
  expect(result.isError).toBe(false);
  return JSON.parse(result.output) as { pid: number; cwd: string; agent: string; greeting: string | null };
};
const names = async (conn: ToolsrvConn) => (await conn.list()).map((t) => t.name);

/** What a uname reads of one of toolsrv's files, attached with the daemon's key (the owner with its own). */
async function read(uname: string, path: string): Promise<string> {
  const client = await NinepClient.dial(served.address);
  try {
    const key = uname === "glenda" ? ownerKey : serviceKey;
    const fsys = await client.attach({ uname, authenticator: hmacAuthenticator(key) });
    return (await fsys.readFile(path)).toString("utf8");
  } finally {
    client.close();
  }
}

describe("an agent's own MCP servers", () => {
  it("are started for the agent alone, in its directory with its environment, and their tools loaded", async () => {
    const conn = await dial("agent1", { env: { GREETING: "hello" }, mcpServers: { probe } });
    expect(conn.mcpStatus).toEqual({
      agent: "agent1",
      servers: [
        { name: "probe", state: "ready", tools: ["mcp__probe__probe", "mcp__probe__write"], problem: null },
      ],
      broken: [],
    });
    expect(await names(conn)).toEqual(expect.arrayContaining(["mcp__probe__probe", "mcp__probe__write"]));
    const seen = await probed(conn);
    expect(seen).toMatchObject({ cwd: dirs.work1, agent: "agent1", greeting: "hello" });
    expect(await read("agent1", "tools")).toContain("mcp__probe__write");

    const other = await dial("agent2");
    expect(await names(other)).not.toContain("mcp__probe__probe");
    expect(await read("agent2", "tools")).not.toContain("mcp__probe__");
    await expect(other.load(["mcp__probe__probe"])).rejects.toThrow("no tool named mcp__probe__probe");
    expect(await call(other, "mcp__probe__probe")).toMatchObject({
      isError: true,
      output: expect.stringContaining("is not loaded"),
    });
    // The owner sees every server, whose it is and how it stands.
    expect(JSON.parse(await read("glenda", "mcp"))).toContainEqual(
      expect.objectContaining({
        name: "probe",
        agent: "agent1",
        state: "ready",
        transport: "stdio",
        tools: 2,
      }),
    );
  });

  it("run under the agent's sandbox: writing in its directory, not outside what the policy grants", async () => {
    const conn = await dial("agent3", { mcpServers: { probe } });
    const inside = join(dirs.work1, "inside.txt");
    expect(await call(conn, "mcp__probe__write", { path: inside, text: "ok" })).toMatchObject({
      isError: false,
    });
    expect(readFileSync(inside, "utf8")).toBe("ok");
    const beyond = join(dirs.outside, "escaped.txt");
    const refused = await call(conn, "mcp__probe__write", { path: beyond, text: "no" });
    expect(refused).toMatchObject({
      isError: true,
      output: expect.stringMatching(/EACCES|permission denied/i),
    });
    expect(existsSync(beyond)).toBe(false);
  });

  it("may be set by the daemon alone: an agent attached as itself is refused", async () => {
    const client = await NinepClient.dial(served.address);
    try {
      const agent = await client.attach({ uname: "agent1", authenticator: hmacAuthenticator(serviceKey) });
      await expect(agent.open("agentmcp", ORDWR)).rejects.toThrow(
        `permission denied: only the daemon (attached as ${DAEMON_UNAME}) sets an agent's MCP servers, not agent1`,
      );
      // An agent's own key (as its tool processes hold) does not even attach.
      await expect(
        client.attach({ uname: "agent1", authenticator: hmacAuthenticator(randomBytes(32)) }),
      ).rejects.toThrow("authentication failed");
    } finally {
      client.close();
    }
  });

  it("stop when the set is replaced, and the new ones' tools take their place", async () => {
    const conn = await dial("agent4", { mcpServers: { probe } });
    const { pid } = await probed(conn);
    const status = await conn.setMcpServers({ second: probe });
    expect(status.servers).toEqual([expect.objectContaining({ name: "second", state: "ready" })]);
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);
    const listed = await names(conn);
    expect(listed).toContain("mcp__second__probe");
    expect(listed).not.toContain("mcp__probe__probe");
    expect((await probed(conn, "mcp__second__probe")).pid).not.toBe(pid);
  });

  it("stop when the agent's connection closes", async () => {
    const conn = await dial("agent5", { mcpServers: { probe } });
    const { pid } = await probed(conn);
    await conn.close();
    await vi.waitFor(() => expect(processGone(pid)).toBe(true), WAIT);
    expect(await read("agent5", "tools")).not.toContain("mcp__probe__");
  });

  it("report a server that cannot start, or an entry that is wrong, without failing the dial", async () => {
    const conn = await dial("agent6", {
      mcpServers: {
        probe,
        missing: { command: "/nonexistent/mcp-server" },
        // The agent's sandbox is not the entry's to widen.
        wide: { ...probe, sandbox: { filesystem: { rw: ["/"] } } } as never,
      },
    });
    expect(conn.mcpStatus?.servers.map((s) => [s.name, s.state])).toEqual([
      ["probe", "ready"],
      ["missing", "broken"],
    ]);
    expect(conn.mcpStatus?.broken).toEqual([
      {
        file: "agent6's own MCP servers: mcpServers.wide",
        reason:
          "sandbox cannot be set for an agent's own server: it runs in the agent's directory, under the agent's sandbox",
      },
      {
        file: "agent6's own MCP servers: mcpServers.missing",
        reason: expect.stringContaining("could not start"),
      },
    ]);
    const broken = await read("agent6", "broken");
    expect(broken).toContain("agent6's own MCP servers: mcpServers.missing: could not start");
    expect(await read("agent2", "broken")).not.toContain("agent6");
    expect((await probed(conn)).agent).toBe("agent6");
  });

  it("lose a name that an executable (or mcp.json) has, which the agent keeps", async () => {
    const conn = await dial("agent7", { mcpServers: { clash: probe } });
    expect(conn.mcpStatus?.broken).toEqual([
      {
        file: "agent7's own MCP servers: mcpServers.clash",
        reason: `its tool mcp__clash__probe is not offered: the name is ${clash}`,
      },
    ]);
    expect(conn.mcpStatus?.servers[0]?.tools).toEqual(["mcp__clash__write"]);
    expect(await names(conn)).toEqual(expect.arrayContaining(["mcp__clash__write"]));
    expect(await names(conn)).not.toContain("mcp__clash__probe");
    await conn.load(["mcp__clash__probe"]);
    expect((await call(conn, "mcp__clash__probe")).output).toBe("executable\n");
  });

  it("stop when toolsrv stops", async () => {
    const own = await serve("stopping");
    const conn = await dial("agent8", { mcpServers: { probe } }, own);
    const { pid } = await probed(conn);
    await own.server.close();
    expect(processGone(pid)).toBe(true);
    await own.ninep.close();
  });
});
