import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { OLLIE, type Ollie, startOllie, WAIT } from "./harness.js";

let o: Ollie;
let client: Client;
const clients: Client[] = [];

/** `ollie -a ADDRESS mcp`, the real command, in the daemon's work directory, with the SDK's own client. */
async function mcpClient(address: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [OLLIE, "-a", address, "mcp"],
    env: o.env,
    cwd: o.work,
    stderr: "pipe",
  });
  const c = new Client({ name: "ollie-mcp-test", version: "1.0.0" });
  await c.connect(transport);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  o = await startOllie("olliesrv-mcp-");
  client = await mcpClient(o.address);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await o.stop();
  await o.remove();
});

/** Calls a tool; `options` go to the SDK client (onprogress, signal). */
async function call(
  name: string,
  args: Record<string, unknown>,
  options: { onprogress?: (p: Progress) => void; signal?: AbortSignal } = {},
  via = client,
): Promise<CallToolResult> {
  return (await via.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
}

/** A result's text, its blocks one a line. */
const text = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

async function newSession(args: Record<string, unknown> = {}): Promise<string> {
  const r = await call("ollie_new_session", args);
  expect(r.isError, text(r)).toBeFalsy();
  return (r.structuredContent as { session: string }).session;
}

/** A reply that streams for as long as a test needs: it only ends by being stopped. */
const SLOW = { text: "a very long story ".repeat(200), chunkSize: 4, delayMs: 50 };

describe("ollie mcp", () => {
  it("lists its tools, each described and annotated", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "ollie_new_session",
      "ollie_prompt",
      "ollie_read_chat",
      "ollie_status",
      "ollie_stop",
    ]);
    for (const t of tools) expect(t.description, t.name).toMatch(/Like `ollie /);
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(readOnly.sort()).toEqual(["ollie_read_chat", "ollie_status"]);
    expect(tools.find((t) => t.name === "ollie_prompt")?.inputSchema.required).toEqual(["session", "text"]);
  });

  it("creates a session, prompts it with progress, and shows it in status and chat", async () => {
    const id = await newSession({ name: "mcp", agent: "coding" });
    expect(id).toMatch(/^\d{19}-[0-9a-f]{6}$/);
    o.mock.enqueue(
      { toolCalls: [{ name: "file_write", arguments: { path: "note.txt", content: "noted\n" } }] },
      { text: "Wrote note.txt.", chunkSize: 3, delayMs: 10 },
    );
    const progress: Progress[] = [];
    const r = await call(
      "ollie_prompt",
      { session: id, text: "Write a note." },
      { onprogress: (p) => progress.push(p) },
    );
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toEqual({ session: id, outcome: "done", reply: "Wrote note.txt." });
    expect(text(r)).toBe("Wrote note.txt.\nthe turn ended: done");

    expect(progress.length).toBeGreaterThan(0);
    const numbers = progress.map((p) => p.progress);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    const messages = progress.map((p) => p.message);
    expect(
      messages.some((m) => m?.includes("file_write")),
      messages.join("\n"),
    ).toBe(true);
    expect(messages).not.toContain("» Write a note.");

    const status = text(await call("ollie_status", { session: id }));
    expect(status).toMatch(
      new RegExp(
        `^id\\tstate\\tprofile\\tmodel\\ttokens\\tcost\\n${id}\\tidle\\tcoding\\tmock-model\\t\\d+ in / \\d+ out\\t\\$0\\.0000 session\\n$`,
      ),
    );
    const all = text(await call("ollie_status", {}));
    expect(all).toContain(`${id}\tmcp\tidle\t${o.work}\n`);
    expect(all).toContain(`${id}\tidle\tcoding\tmock-model\t`);

    const chat = text(await call("ollie_read_chat", { session: id }));
    expect(chat).toMatch(/^» Write a note\.\n+→ file_write .*\n← file_write.*\nWrote note\.txt\.\n+$/);
    const tail = text(await call("ollie_read_chat", { session: id, tail: 1 }));
    expect(tail).toMatch(/^\[\d+ earlier lines left out\]\nWrote note\.txt\.\n$/);
  });

  it("answers a failed turn with an error result that says how it ended", async () => {
    const id = await newSession();
    o.mock.enqueue({ fault: { type: "auth" } });
    const r = await call("ollie_prompt", { session: id, text: "hello" });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(new RegExp(`^session ${id}: the turn ended: error: mock 401: `));
    expect((r.structuredContent as { outcome: string }).outcome).toMatch(/^error: /);
  });

  it("names the session it cannot find, and refuses what is no session id, directory or profile", async () => {
    const unknown = "1111111111111111111-abcdef";
    for (const [tool, args] of [
      ["ollie_status", {}],
      ["ollie_read_chat", {}],
      ["ollie_stop", {}],
      ["ollie_prompt", { text: "anyone there?" }],
    ] as const) {
      const r = await call(tool, { session: unknown, ...args });
      expect(r.isError, tool).toBe(true);
      expect(text(r), tool).toBe(
        `session ${unknown}: no such session (ollie_status without a session lists the sessions)`,
      );
      const bogus = await call(tool, { session: "../../ctl", ...args });
      expect(bogus.isError, tool).toBe(true);
      expect(text(bogus), tool).toMatch(/^'\.\.\/\.\.\/ctl' is not a session id/);
    }
    const relative = await call("ollie_new_session", { cwd: "work" });
    expect(relative.isError).toBe(true);
    expect(text(relative)).toBe("cwd must be an absolute directory, not 'work'");
    const missing = await call("ollie_new_session", { agent: "nosuch" });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(`could not create a session in ${o.work}: `);

    const idle = await newSession();
    const stopped = await call("ollie_stop", { session: idle });
    expect(stopped.isError).toBe(true);
    expect(text(stopped)).toMatch(new RegExp(`^session ${idle}: .*nothing is running$`));
  });

  it("stops the turn when the client cancels the prompt", async () => {
    const id = await newSession();
    o.mock.enqueue(SLOW);
    const cancel = new AbortController();
    const progress: Progress[] = [];
    const asking = call(
      "ollie_prompt",
      { session: id, text: "Tell me a long story." },
      { signal: cancel.signal, onprogress: (p) => progress.push(p) },
    );
    await vi.waitFor(() => expect(progress.map((p) => p.message)).toContain("thinking"), WAIT);
    cancel.abort();
    await expect(asking).rejects.toThrow();
    await vi.waitFor(async () => {
      expect((await o.read(`session/${id}/agent/main/outcome`)).trim()).toBe("interrupted");
      expect(text(await call("ollie_status", { session: id }))).toContain(`\n${id}\tidle\t`);
    }, WAIT);
  });

  it("ollie_stop stops a turn, whose ollie_prompt then answers how it ended", async () => {
    const id = await newSession();
    o.mock.enqueue(SLOW);
    const progress: Progress[] = [];
    const asking = call(
      "ollie_prompt",
      { session: id, text: "Another long story." },
      { onprogress: (p) => progress.push(p) },
    );
    // Under way once the model is asked (the agent's prompt commands, as it is made, come before).
    await vi.waitFor(() => expect(progress.map((p) => p.message)).toContain("thinking"), WAIT);
    const stopped = await call("ollie_stop", { session: id });
    expect(stopped.isError, text(stopped)).toBeFalsy();
    const r = await asking;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(new RegExp(`^session ${id}: the turn ended: interrupted`));
    expect((r.structuredContent as { outcome: string }).outcome).toBe("interrupted");
  });

  it("starts without olliesrv, and answers each call with where it looked", async () => {
    const nowhere = `unix!${join(o.root, "nowhere", "ollie")}`;
    const alone = await mcpClient(nowhere);
    expect((await alone.listTools()).tools).toHaveLength(5);
    for (let i = 0; i < 2; i++) {
      const r = await call("ollie_status", {}, {}, alone);
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(`olliesrv is not running at ${nowhere}: `);
    }
    const r = await execa(process.execPath, [OLLIE, "-a", nowhere, "mcp", "extra"], {
      env: o.env,
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode).toBe(2);
  });

  it("says when olliesrv has gone, and reaches it again once it is back", async () => {
    const id = await newSession();
    await o.stop();
    await vi.waitFor(async () => {
      const r = await call("ollie_status", { session: id });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(`session ${id}: olliesrv is not running at ${o.address}: `);
    }, WAIT);
    await o.restart();
    const r = await call("ollie_status", { session: id });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toContain(`\n${id}\tidle\t`);
  });

  it("leaves when its standard input closes, stopping the turn it waited for, with only JSON-RPC on stdout", async () => {
    const id = await o.create(JSON.stringify({ cwd: o.work }));
    o.mock.enqueue(SLOW);
    const child = execa(process.execPath, [OLLIE, "-a", o.address, "mcp"], {
      cwd: o.work,
      env: o.env,
      extendEnv: false,
      reject: false,
      stdin: "pipe",
    });
    const send = (message: object) =>
      child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    send({ method: "notifications/initialized" });
    send({
      id: 2,
      method: "tools/call",
      params: {
        name: "ollie_prompt",
        arguments: { session: id, text: "A story." },
        _meta: { progressToken: 7 },
      },
    });
    await vi.waitFor(
      async () => expect((await o.read(`session/${id}/agent/main/state`)).trim()).toBe("thinking"),
      WAIT,
    );
    child.stdin!.end();
    const r = await child;
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    await vi.waitFor(
      async () => expect((await o.read(`session/${id}/agent/main/outcome`)).trim()).toBe("interrupted"),
      WAIT,
    );
  });
});
