import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processGone } from "@ollie/sandbox/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Daemon, scratch, shTool, startDaemon, WAIT } from "./daemon.js";

// An MCP server that breaks the rules on purpose (see the fixture), next to one that never starts.
const ODD = fileURLToPath(new URL("./fixtures/odd-mcp-server.mjs", import.meta.url));
const odd = (mode: string, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [ODD, mode],
  sandbox: { filesystem: { ro: [ODD] } },
  ...extra,
});

const s = scratch("toolsrv-mcp-faults-");
let daemon: Daemon;

beforeAll(async () => {
  s.tool("hello", shTool("hello", "", "echo hello"));
  const mcpServers = {
    hang: odd("hang", { startupTimeout: 3600 }),
    odd: odd("tools", { timeout: 1 }),
    looping: odd("loop"),
    big: odd("tools"),
  };
  writeFileSync(join(s.config, "ollie", "mcp.json"), JSON.stringify({ mcpServers }));
  daemon = await startDaemon(s);
});

afterAll(async () => {
  await daemon?.stop();
  s.remove();
});

const call = async (tool: string, args: Record<string, unknown> = {}) => {
  const conn = await daemon.conn("agent");
  try {
    await conn.load([tool]);
    return await conn.callRaw({ tool, args }, new AbortController().signal);
  } finally {
    await conn.close();
  }
};

interface Status {
  name: string;
  state: string;
  pid: number | null;
  restarts: number;
  stderr: string;
}

const statusOf = async (name: string): Promise<Status> => {
  const { fsys, close } = await daemon.attach("glenda");
  try {
    return (JSON.parse((await fsys.readFile("mcp")).toString()) as Status[]).find((x) => x.name === name)!;
  } finally {
    close();
  }
};

describe("MCP servers that misbehave", () => {
  it("hold up no call of another tool while one of them never answers", async () => {
    const conn = await daemon.conn("agent", { autoLoad: ["hello"] });
    const answer = await conn.callRaw({ tool: "hello", args: {} }, new AbortController().signal);
    await conn.close();
    expect(answer).toMatchObject({ isError: false, output: "hello\n" });
    expect((await statusOf("hang")).state).toBe("starting");
  });

  it("offer the tools that can be used, and say why the others cannot; a line that is no message is skipped", async () => {
    expect(await call("mcp__odd__ping")).toMatchObject({ isError: false, output: "pong" });
    const { fsys, close } = await daemon.attach("agent");
    const broken = (await fsys.readFile("broken")).toString();
    close();
    expect(broken).toMatch(/mcpServers\.odd: its tool 'crooked' cannot be used: inputSchema\.type: /);
    expect(broken).toMatch(
      /mcpServers\.looping: could not start: its tool list came back to the cursor 'again'/,
    );
  });

  it("time a call out, and tell the server it is cancelled", async () => {
    expect(await call("mcp__odd__sleep")).toMatchObject({ isError: true, timedOut: true });
    await vi.waitFor(
      async () => expect((await statusOf("odd")).stderr).toContain("got notifications/cancelled"),
      WAIT,
    );
  });

  it("fail a call the server's end cuts off, saying how it ended, and start it again", async () => {
    const died = await call("mcp__odd__die");
    expect(died).toMatchObject({ isError: true, timedOut: false });
    expect(died.output).toMatch(/the MCP server odd ended during the call: ended; it exited with status 3/);
    await vi.waitFor(
      async () => expect(await statusOf("odd")).toMatchObject({ state: "ready", restarts: 1 }),
      WAIT,
    );
    expect((await call("mcp__odd__ping")).output).toBe("pong");
  });

  it("end a server whose message is too big to take, failing the call at once", async () => {
    const huge = await call("mcp__big__huge");
    expect(huge).toMatchObject({ isError: true, timedOut: false });
    expect(huge.output).toMatch(/the MCP server big ended during the call: ended: it sent a message too big/);
  });

  it("are stopped with toolsrv, even while starting", async () => {
    const hang = await statusOf("hang");
    expect(hang.state).toBe("starting");
    await daemon.stop();
    await vi.waitFor(() => expect(processGone(hang.pid!)).toBe(true), WAIT);
  });
});
