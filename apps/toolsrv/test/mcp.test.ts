// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is mcp.json's own syntax, expanded by toolsrv
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processGone } from "@ollie/sandbox/testing";
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

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** server-everything serving Streamable HTTP, as a server someone else runs. */
async function startEverythingHttp(given?: number): Promise<{ url: string; child: ChildProcess }> {
  const port = given ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let said = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes("listening")) resolve();
    });
    child.once("exit", () => reject(new Error(`server-everything exited: ${said}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** An HTTP server that notes each request's headers and refuses it, as one that wants another token would. */
async function startRecorder(): Promise<{ url: string; server: Server; headers: IncomingHttpHeaders[] }> {
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    headers.push(request.headers);
    response.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid_token"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, headers };
}

const s = scratch("toolsrv-mcp-");
const shared = join(s.root, "shared");
// Outside every path toolsrv's policy grants (which include the temporary directory).
const hidden = `/var/tmp/ollie-mcp-hidden-${randomUUID()}`;
// Everything the server-everything behind a tee reads and writes, in the order it happened.
const wire = join(s.work, "wire.log");
let daemon: Daemon;
let everythingHttp: { url: string; child: ChildProcess };
let recorder: { url: string; server: Server; headers: IncomingHttpHeaders[] };

beforeAll(async () => {
  everythingHttp = await startEverythingHttp();
  recorder = await startRecorder();
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
      own: { command: process.execPath, args: [EVERYTHING, "stdio"], sandbox: readStore, shared: false },
      missing: { command: "/nonexistent/mcp-server" },
      typo: { comand: "node" },
      secret: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${UNSET_MCP_TOKEN}" } },
      remote: { url: `${everythingHttp.url}/mcp` },
      guarded: {
        type: "http",
        url: `${recorder.url}/mcp`,
        headers: { Authorization: "Bearer ${TEST_MCP_TOKEN}", "X-Team": "${TEST_MCP_TEAM:-core}" },
      },
    },
  };
  writeFileSync(join(s.config, "ollie", "mcp.json"), JSON.stringify(config, null, 2));
  daemon = await startDaemon(s, [], { TEST_MCP_TOKEN: "t0ken" });
});

afterAll(async () => {
  await daemon?.stop();
  everythingHttp?.child.kill();
  recorder?.server.close();
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
  agent: string | null;
  state: string;
  pid: number | null;
  restarts: number;
  tools: number;
}

const statuses = async (): Promise<Status[]> => {
  const { fsys, close } = await daemon.attach("glenda");
  try {
    return JSON.parse((await fsys.readFile("mcp")).toString()) as Status[];
  } finally {
    close();
  }
};

const statusOf = async (name: string): Promise<Status> =>
  (await statuses()).find((x) => x.name === name && x.agent === null)!;

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
    expect(broken).toMatch(
      /mcpServers\.guarded: could not start: HTTP 401 \(the server refused the credentials: set them in the entry's headers/,
    );
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

  it("gives each agent a server of its own when the entry is not shared, with its tools' environment", async () => {
    const first = await call("alice", "mcp__own__get-env", {});
    const second = await call("bob", "mcp__own__get-env", {});
    expect(first.output).toMatch(/"OLLIE_UNAME": "alice"/);
    expect(second.output).toMatch(/"OLLIE_UNAME": "bob"/);
    const own = (await statuses()).filter((x) => x.name === "own" && x.agent !== null);
    expect(own.map((x) => x.agent).sort()).toEqual(["alice", "bob"]);
    expect(new Set(own.map((x) => x.pid)).size).toBe(2);
    // A shared server's environment is toolsrv's, not an agent's.
    expect((await call("alice", "mcp__everything__get-env", {})).output).not.toContain("OLLIE_UNAME");
  });

  it("reaches a Streamable HTTP server, with the headers mcp.json gives", async () => {
    expect(await call("agent6", "mcp__remote__get-sum", { a: 20, b: 22 })).toMatchObject({
      isError: false,
      output: expect.stringContaining("42"),
    });
    expect(recorder.headers[0]).toMatchObject({ authorization: "Bearer t0ken", "x-team": "core" });
  });

  it("connects again to a Streamable HTTP server that was restarted and forgot the session", async () => {
    const port = new URL(everythingHttp.url).port;
    everythingHttp.child.kill();
    await new Promise((resolve) => everythingHttp.child.once("exit", resolve));
    everythingHttp = await startEverythingHttp(Number(port));
    expect(await call("agent6", "mcp__remote__get-sum", { a: 1, b: 2 })).toMatchObject({
      isError: false,
      output: expect.stringContaining("3"),
    });
    expect((await statusOf("remote")).restarts).toBe(1);
  });

  it("follows edits of mcp.json: a server added starts, one removed stops", async () => {
    const file = join(s.config, "ollie", "mcp.json");
    const config = JSON.parse(readFileSync(file, "utf8")) as { mcpServers: Record<string, unknown> };
    const tapped = await statusOf("tapped");
    config.mcpServers.late = config.mcpServers.everything;
    delete config.mcpServers.tapped;
    delete config.mcpServers.missing;
    writeFileSync(file, JSON.stringify(config, null, 2));
    expect((await call("agent7", "mcp__late__echo", { message: "late" })).output).toContain("late");
    const { fsys, close } = await daemon.attach("agent7");
    const broken = (await fsys.readFile("broken")).toString();
    const names = (JSON.parse((await fsys.readFile("tools")).toString()) as Array<{ name: string }>).map(
      (t) => t.name,
    );
    close();
    expect(broken).not.toContain("mcpServers.missing");
    expect(names).not.toContain("mcp__tapped__echo");
    expect(await statusOf("tapped")).toBeUndefined();
    await vi.waitFor(() => expect(processGone(tapped.pid!)).toBe(true), WAIT);
  });
});
