import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { processesMarked, processesWhere, processGone } from "@ollie/sandbox/testing";
import type { ToolsrvConn } from "@ollie/toolsrv/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createMessageConnection, SocketMessageReader, SocketMessageWriter } from "vscode-jsonrpc/node";
import { type ServerStatus, STATUS_REQUEST } from "../src/tools/lib/lsp/broker-protocol.js";
import { type Daemon, scratch, startDaemon, WAIT } from "./daemon.js";

/**
 * The lsp_* tools through a real toolsrv (sandboxed calls, the broker as their detached companion) against a
 * real typescript-language-server on a small TypeScript project.
 */

const APP = fileURLToPath(new URL("..", import.meta.url));
const REPO = join(APP, "..", "..");
const TOOLS = [
  "lsp_definition",
  "lsp_references",
  "lsp_hover",
  "lsp_diagnostics",
  "lsp_symbols",
  "lsp_rename",
];
/** Language servers take their time to load a project on a busy machine. */
const SLOW = { timeout: 60_000, interval: 100 };

const s = scratch("toolsrv-lsp-");
const tmp = join(s.root, "tmp");
const socket = join(tmp, "ollie-lsp.sock");
const mark = randomUUID();
const env = {
  // typescript-language-server from this app's devDependencies, and the workspace's tsserver it looks for.
  PATH: [
    join(APP, "node_modules", ".bin"),
    join(REPO, "node_modules", ".bin"),
    dirname(process.execPath),
    "/usr/bin",
    "/bin",
  ].join(":"),
  TMPDIR: tmp,
  OLLIE_TEST_MARK: mark,
};

/** A TypeScript project in the scratch area's working directory, and the sandbox to work on it. */
function project(s: ReturnType<typeof scratch>): void {
  // The sandbox lets the calls read and run the language server and TypeScript where pnpm installed them.
  writeFileSync(
    join(s.config, "ollie", "sandbox.yaml"),
    `filesystem:\n  rox:\n    - ${join(REPO, "node_modules")}\n    - ${join(APP, "node_modules")}\n`,
  );
  mkdirSync(join(s.work, "src"), { recursive: true });
  mkdirSync(join(s.root, "tmp"), { recursive: true });
  writeFileSync(
    join(s.work, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        noEmit: true,
      },
      include: ["src"],
    }),
  );
  writeFileSync(
    join(s.work, "src", "greet.ts"),
    [
      "/** Says hello to someone. */",
      "export function greet(name: string): string {",
      '  return "hello, " + name;',
      "}",
      "",
      "export class Greeter {",
      "  constructor(private readonly who: string) {}",
      "  hello(): string {",
      "    return greet(this.who);",
      "  }",
      "}",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(s.work, "src", "main.ts"),
    [
      'import { greet, Greeter } from "./greet.js";',
      "",
      'const message: string = greet("world");',
      'console.log(message, new Greeter("you").hello());',
      "",
    ].join("\n"),
  );
  writeFileSync(join(s.work, "tool.py"), "print('hi')\n");
}

let daemon: Daemon;
let conn: ToolsrvConn;

beforeAll(async () => {
  project(s);
  daemon = await startDaemon(s, ["--default-tools", [...TOOLS, "file_write"].join(",")]);
  conn = await daemon.conn("agent1", { env });
});
afterAll(async () => {
  await conn?.close();
  await daemon?.stop();
  s.remove();
});

async function call(tool: string, args: Record<string, unknown>) {
  return conn.call(tool, args, new AbortController().signal);
}

/** Asks the broker which servers it runs, over its socket (as the test's root user, outside the sandbox). */
async function servers(): Promise<ServerStatus[]> {
  const sock = createConnection(socket);
  await new Promise((resolve, reject) => sock.once("connect", resolve).once("error", reject));
  const rpc = createMessageConnection(new SocketMessageReader(sock), new SocketMessageWriter(sock));
  rpc.listen();
  try {
    return await rpc.sendRequest(STATUS_REQUEST, {});
  } finally {
    rpc.dispose();
    sock.destroy();
  }
}

async function brokers() {
  return (await conn.processes()).filter((p) => p.tool === "lsp_broker" && p.status === "running");
}

const alive = (pid: number) => !processGone(pid);

describe("the lsp_* tools", () => {
  let serverPid: number | undefined;

  it("finds a definition and hovers, the first calls starting one broker between them", async () => {
    const [definition, hover] = await Promise.all([
      call("lsp_definition", { path: "src/main.ts", line: 3, column: 25 }),
      call("lsp_hover", { path: "src/main.ts", symbol: "greet", line: 3 }),
    ]);
    expect(definition).toEqual({
      output: "src/greet.ts:2:17  export function greet(name: string): string {\n",
    });
    expect(hover.isError).toBeUndefined();
    expect(hover.output).toContain('src/main.ts:3:25  const message: string = greet("world");');
    expect(hover.output).toContain("greet(name: string): string");
    expect(hover.output).toContain("Says hello to someone.");

    const [broker, ...more] = await brokers();
    expect(more).toEqual([]);
    expect(broker).toMatchObject({ agent: "agent1", detached: true, cwd: s.work });
    const running = await servers();
    expect(running).toMatchObject([{ language: "typescript", root: s.work, documents: 1 }]);
    serverPid = running[0]?.pid;
    expect(serverPid && alive(serverPid)).toBe(true);
  });

  it("lists references by symbol name, bounded", async () => {
    const all = await call("lsp_references", { path: "src/greet.ts", symbol: "greet" });
    expect(all.output).toBe(
      [
        "4 references:",
        "src/greet.ts:2:17  export function greet(name: string): string {",
        "src/greet.ts:9:12  return greet(this.who);",
        'src/main.ts:1:10  import { greet, Greeter } from "./greet.js";',
        'src/main.ts:3:25  const message: string = greet("world");',
        "",
      ].join("\n"),
    );
    const two = await call("lsp_references", { path: "src/greet.ts", symbol: "greet", limit: 2 });
    expect(two.output).toMatch(/^4 references:\n.+\n.+\n… and 2 more\n$/);
  });

  it("lists a file's symbols, nested, and the project's by query", async () => {
    const outline = await call("lsp_symbols", { path: "src/greet.ts" });
    expect(outline.output).toContain("src/greet.ts:2:17  function greet\n");
    expect(outline.output).toContain("src/greet.ts:6:14  class Greeter\n");
    expect(outline.output).toContain("src/greet.ts:8:3    method hello\n");
    const found = await call("lsp_symbols", { query: "Greeter" });
    expect(found.output).toMatch(/^src\/greet\.ts:6:\d+ {2}class Greeter$/m);
  });

  it("sees an edit made by another tool: diagnostics after file_write", async () => {
    expect((await call("lsp_diagnostics", { path: "src/main.ts" })).output).toBe(
      "no problems in src/main.ts\n",
    );
    const text = readFileSync(join(s.work, "src", "main.ts"), "utf8").replace(
      "message: string",
      "message: number",
    );
    expect((await call("file_write", { path: "src/main.ts", content: text })).isError).toBeUndefined();
    const after = await call("lsp_diagnostics", { path: "src/main.ts" });
    expect(after.output).toBe(
      [
        "1 problem in src/main.ts:",
        "src/main.ts:3:7  error TS2322: Type 'string' is not assignable to type 'number'.  | " +
          'const message: number = greet("world");',
        "",
      ].join("\n"),
    );
  });

  it("previews a rename without writing, then applies it", async () => {
    const before = readFileSync(join(s.work, "src", "greet.ts"), "utf8");
    const preview = await call("lsp_rename", {
      path: "src/greet.ts",
      line: 2,
      column: 17,
      new_name: "salute",
    });
    expect(preview.output).toBe(
      [
        "rename 'greet' → 'salute': 4 edits in 2 files (not applied: call again with apply true to write them)",
        "src/greet.ts:2:17  export function greet(name: string): string { → export function salute(name: string): string {",
        "src/greet.ts:9:12  return greet(this.who); → return salute(this.who);",
        'src/main.ts:1:10  import { greet, Greeter } from "./greet.js"; → import { salute, Greeter } from "./greet.js";',
        'src/main.ts:3:25  const message: number = greet("world"); → const message: number = salute("world");',
        "",
      ].join("\n"),
    );
    expect(readFileSync(join(s.work, "src", "greet.ts"), "utf8")).toBe(before);

    const applied = await call("lsp_rename", {
      path: "src/greet.ts",
      symbol: "greet",
      new_name: "salute",
      apply: true,
    });
    expect(applied.output).toMatch(/^renamed 'greet' → 'salute': 4 edits in 2 files\n/);
    expect(readFileSync(join(s.work, "src", "greet.ts"), "utf8")).toBe(
      before.replaceAll("greet(", "salute("),
    );
    expect(readFileSync(join(s.work, "src", "main.ts"), "utf8")).toContain(
      'import { salute, Greeter } from "./greet.js";',
    );
    const refs = await call("lsp_references", { path: "src/main.ts", symbol: "salute" });
    expect(refs.output).toMatch(/^4 references:/);
  });

  it("says what is missing: a language without its server, a symbol not there", async () => {
    const py = await call("lsp_hover", { path: "tool.py", line: 1, column: 1 });
    expect(py.isError).toBe(true);
    expect(py.output).toContain(
      "no language server for .py files: pyright-langserver is not on PATH; install pyright (npm i -g pyright)",
    );
    const nothing = await call("lsp_definition", { path: "src/main.ts", symbol: "nowhere" });
    expect(nothing.output).toContain("'nowhere' does not occur in src/main.ts");
  });

  it("kept one server for every call", async () => {
    expect((await servers()).map((r) => r.pid)).toEqual([serverPid]);
    expect(await brokers()).toHaveLength(1);
  });

  it("starts a broker again on the next call after its broker was killed outright", async () => {
    const [old] = await brokers();
    const marked = new Set(processesMarked(`OLLIE_TEST_MARK=${mark}`));
    const [broker, ...others] = processesWhere(
      "cmdline",
      (words) => words.some((w) => w.endsWith("/lsp_broker")),
      (pid) => marked.has(pid),
    );
    expect(others).toEqual([]);
    process.kill(broker!, "SIGKILL");
    // Its language server ends with it (its launcher ends the whole tree), and toolsrv learns of it.
    await vi.waitFor(
      async () => expect((await conn.process(old!.id))?.status).toBe("killed by SIGKILL"),
      WAIT,
    );
    expect(alive(serverPid!)).toBe(false);
    const again = await call("lsp_definition", { path: "src/main.ts", symbol: "salute", line: 3 });
    expect(again.output).toBe("src/greet.ts:2:17  export function salute(name: string): string {\n");
    const [now, ...more] = await brokers();
    expect(more).toEqual([]);
    expect(now!.id).not.toBe(old!.id);
    const [server] = await servers();
    expect(server!.pid).not.toBe(serverPid);
    serverPid = server!.pid;
  });

  it("ends the broker and its server when the agent's TMPDIR goes, as it does with the agent", async () => {
    const [broker] = await brokers();
    rmSync(tmp, { recursive: true, force: true });
    await vi.waitFor(async () => expect((await conn.process(broker!.id))?.status).toBe("exited 0"), SLOW);
    expect(alive(serverPid!)).toBe(false);
    await vi.waitFor(() => expect(processesMarked(`OLLIE_TEST_MARK=${mark}`)).toEqual([]), WAIT);
  });

  it("starts a broker again on the next call, and toolsrv's end ends it with its server", async () => {
    mkdirSync(tmp, { recursive: true });
    const again = await call("lsp_definition", { path: "src/main.ts", symbol: "salute", line: 3 });
    expect(again.output).toBe("src/greet.ts:2:17  export function salute(name: string): string {\n");
    const [{ pid } = { pid: undefined }] = await servers();
    expect(pid).not.toBe(serverPid);
    expect(processesMarked(`OLLIE_TEST_MARK=${mark}`).length).toBeGreaterThanOrEqual(3);
    await conn.close();
    await daemon.stop();
    expect(alive(pid!)).toBe(false);
    await vi.waitFor(() => expect(processesMarked(`OLLIE_TEST_MARK=${mark}`)).toEqual([]), WAIT);
  });
});

describe("an idle broker", () => {
  const s2 = scratch("toolsrv-lsp-idle-");
  const mark2 = randomUUID();
  afterAll(() => s2.remove());

  it("shuts its idle server down, then exits, saying so in its proc/ output", async () => {
    project(s2);
    const daemon2 = await startDaemon(s2, ["--default-tools", "lsp_symbols"]);
    try {
      const conn2 = await daemon2.conn("agent2", {
        env: {
          ...env,
          TMPDIR: join(s2.root, "tmp"),
          OLLIE_TEST_MARK: mark2,
          OLLIE_LSP_IDLE_SECONDS: "1",
          OLLIE_LSP_BROKER_IDLE_SECONDS: "1",
        },
      });
      const outline = await conn2.call("lsp_symbols", { path: "src/main.ts" }, new AbortController().signal);
      expect(outline.output).toContain("src/main.ts:3:7  constant message\n");
      const [broker] = (await conn2.processes()).filter((p) => p.tool === "lsp_broker");
      await vi.waitFor(async () => expect((await conn2.process(broker!.id))?.status).toBe("exited 0"), SLOW);
      const { fsys, close } = await daemon2.attach("agent2");
      const log = (await fsys.readFile(`proc/${broker!.id}/output`)).toString();
      close();
      expect(log).toMatch(/ started typescript-language-server for .+\/work \(pid \d+\)\n/);
      expect(log).toMatch(/ shutting down typescript-language-server for .+\/work: idle\n/);
      expect(log).toMatch(/ stopping: idle, with no language server left\n/);
      expect(processesMarked(`OLLIE_TEST_MARK=${mark2}`)).toEqual([]);
      await conn2.close();
    } finally {
      await daemon2.stop();
    }
  });
});
