import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Daemon, scratch, startDaemon, WAIT } from "./daemon.js";

// The reference MCP servers from npm, run as the processes users run. pnpm keeps every package under one
// store directory, which their sandbox must let them read.
const serverDir = (name: string) =>
  realpathSync(fileURLToPath(new URL(`../node_modules/@modelcontextprotocol/${name}`, import.meta.url)));
const EVERYTHING = join(serverDir("server-everything"), "dist", "index.js");
const FILESYSTEM = join(serverDir("server-filesystem"), "dist", "index.js");
const STORE = EVERYTHING.slice(0, EVERYTHING.indexOf("/node_modules/") + "/node_modules".length);
const readStore = { filesystem: { rox: [STORE] } };

const s = scratch("toolsrv-mcp-");
const shared = join(s.root, "shared");
// Outside every path toolsrv's policy grants (which include the temporary directory).
const hidden = `/var/tmp/ollie-mcp-hidden-${randomUUID()}`;
// Everything the server-everything behind a tee reads and writes, in the order it happened.
const wire = join(s.work, "wire.log");
let daemon: Daemon;

beforeAll(async () => {
  mkdirSync(shared);
  mkdirSync(hidden);
  writeFileSync(join(shared, "notes.txt"), "the shared notes\n");
  writeFileSync(join(hidden, "secret.txt"), "not for the server\n");
  const config = {
    mcpServers: {
      everything: { command: process.execPath, args: [EVERYTHING, "stdio"], sandbox: readStore },
      // The filesystem server may serve both directories, but its sandbox grants only one of them.
      filesystem: {
        command: process.execPath,
        args: [FILESYSTEM, shared, hidden],
        sandbox: { filesystem: { rox: [STORE], ro: [shared] } },
      },
      tapped: {
        command: "/bin/sh",
        args: ["-c", `tee -a "$WIRE" | "$NODE" "$SERVER" stdio | tee -a "$WIRE"`],
        env: { WIRE: wire, NODE: process.execPath, SERVER: EVERYTHING },
        cwd: s.work,
        sandbox: readStore,
      },
      missing: { command: "/nonexistent/mcp-server" },
      typo: { comand: "node" },
      secret: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${UNSET_MCP_TOKEN}" } },
    },
  };
  writeFileSync(join(s.config, "ollie", "mcp.json"), JSON.stringify(config, null, 2));
  daemon = await startDaemon(s);
});

afterAll(async () => {
  await daemon?.stop();
  s.remove();
  rmSync(hidden, { recursive: true, force: true });
});

const call = async (uname: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal) => {
  const conn = await daemon.conn(uname);
  try {
    if (tool !== "tool_list") await conn.load([tool]);
    return await conn.callRaw({ tool, args }, signal ?? new AbortController().signal);
  } finally {
    await conn.close();
  }
};

interface Status {
  name: string;
  state: string;
  pid: number | null;
  restarts: number;
  tools: number;
}

const statusOf = async (name: string): Promise<Status> => {
  const { fsys, close } = await daemon.attach("glenda");
  try {
    const all = JSON.parse((await fsys.readFile("mcp")).toString()) as Status[];
    return all.find((x) => x.name === name)!;
  } finally {
    close();
  }
};

describe("MCP servers' tools in toolsrv", () => {
  it("lists each server's tools as mcp__SERVER__TOOL, read-only ones as parallel reads", async () => {
    const { fsys, close } = await daemon.attach("agent1");
    const tools = JSON.parse((await fsys.readFile("tools")).toString()) as Array<{
      name: string;
      parallelRead: boolean;
      parameters: { properties: Record<string, unknown> };
    }>;
    close();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("mcp__everything__echo")).toMatchObject({
      parallelRead: true,
      parameters: { properties: { message: { type: "string" } } },
    });
    expect(byName.get("mcp__everything__toggle-simulated-logging")?.parallelRead).toBe(false);
    expect(byName.get("mcp__filesystem__read_text_file")?.parallelRead).toBe(true);
    expect(byName.get("mcp__filesystem__write_file")?.parallelRead).toBe(false);
    // Like any tool, an agent loads them: tool_list offers them.
    const listed = await call("agent1", "tool_list", {});
    expect(listed.output).toMatch(/^mcp__everything__get-sum — Returns the sum of two numbers$/m);
  });

  it("says why a server cannot be used, with its file, key and the end of its standard error", async () => {
    const { fsys, close } = await daemon.attach("agent1");
    const broken = (await fsys.readFile("broken")).toString();
    close();
    const file = join(s.config, "ollie", "mcp.json");
    expect(broken).toContain(`${file}: mcpServers.missing: could not start:`);
    expect(broken).toMatch(/mcpServers\.missing: could not start: .*exited with status 127/);
    expect(broken).toMatch(
      /mcp\.json:\d+:\d+: mcpServers\.typo\.command: missing: the command that starts the server/,
    );
    expect(broken).toContain("mcpServers.secret: ${UNSET_MCP_TOKEN} is not set in toolsrv's environment");
    expect(daemon.stderr()).toMatch(/mcp server missing: could not start/);
  });

  it("calls a tool and gives its text; images and resources as their MIME type and size", async () => {
    expect(await call("agent2", "mcp__everything__get-sum", { a: 2, b: 3 })).toMatchObject({
      isError: false,
      exitCode: 0,
      output: expect.stringContaining("5"),
    });
    const image = await call("agent2", "mcp__everything__get-tiny-image", {});
    expect(image.output).toMatch(/\[image: image\/png, [\d,]+ bytes\]/);
    expect(image.output).not.toMatch(/iVBOR/);
    const resource = await call("agent2", "mcp__everything__get-resource-reference", {
      resourceType: "Text",
      resourceId: 1,
    });
    expect(resource.output).toMatch(
      /\[resource demo:\/\/resource\/dynamic\/text\/1: text\/plain, \d+ bytes\]\n/,
    );
    const refused = await call("agent2", "mcp__everything__get-sum", { a: "two" });
    expect(refused).toMatchObject({ isError: true, exitCode: 1, output: expect.stringContaining("Invalid") });
  });

  it("runs a stdio server under the sandbox, with its own layer on top of toolsrv's policy", async () => {
    const read = await call("agent3", "mcp__filesystem__read_text_file", { path: join(shared, "notes.txt") });
    expect(read).toMatchObject({ isError: false, output: "the shared notes\n" });
    const blocked = await call("agent3", "mcp__filesystem__read_text_file", {
      path: join(hidden, "secret.txt"),
    });
    expect(blocked.isError).toBe(true);
    expect(blocked.output).not.toContain("not for the server");
  });

  it("restarts a server that dies, and its tools work again", async () => {
    const before = await statusOf("everything");
    expect(before).toMatchObject({ state: "ready", restarts: 0 });
    process.kill(before.pid!, "SIGKILL");
    await vi.waitFor(async () => {
      const after = await statusOf("everything");
      expect(after.restarts).toBe(1);
      expect(after.state).toBe("ready");
    }, WAIT);
    expect((await call("agent4", "mcp__everything__echo", { message: "again" })).output).toContain("again");
  });

  it("sends notifications/cancelled for a call that is cancelled", async () => {
    const controller = new AbortController();
    const running = call(
      "agent5",
      "mcp__tapped__trigger-long-running-operation",
      { duration: 60, steps: 60 },
      controller.signal,
    );
    await vi.waitFor(() => expect(readFileSync(wire, "utf8")).toContain('"notifications/progress"'), WAIT);
    controller.abort(new Error("the test cancels"));
    await expect(running).rejects.toThrow("the test cancels");
    await vi.waitFor(() => {
      const messages = readFileSync(wire, "utf8")
        .split("\n")
        .filter(Boolean)
        .map(
          (line) => JSON.parse(line) as { id?: number; method?: string; params?: Record<string, unknown> },
        );
      const request = messages.find(
        (m) => m.method === "tools/call" && m.params?.name === "trigger-long-running-operation",
      );
      expect(request).toBeDefined();
      expect(messages).toContainEqual(
        expect.objectContaining({
          method: "notifications/cancelled",
          params: expect.objectContaining({ requestId: request!.id }),
        }),
      );
    }, WAIT);
  });
});
