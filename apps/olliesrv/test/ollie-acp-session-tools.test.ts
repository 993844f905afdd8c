import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type McpServer, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Editor, startEditor } from "./acp-editor.js";
import { type Ollie, startOllie, WAIT } from "./harness.js";
import { EVERYTHING, EVERYTHING_STORE } from "./server-everything.js";

// What an editor adds to an `ollie acp` session beyond prompts: the commands it offers after `/` (a
// skill's, /compact) and the MCP servers it hands the session.

// server-everything from npm, as the editor's MCP server; the sandbox lets its tools' processes read the
// package store it is in.
const STORE = EVERYTHING_STORE;

let o: Ollie;
beforeAll(async () => {
  o = await startOllie("olliesrv-acp-extras-", {
    setup: (config) => {
      writeFileSync(join(config, "sandbox.yaml"), `filesystem:\n  rox: [${JSON.stringify(STORE)}]\n`);
      mkdirSync(join(config, "skills"), { recursive: true });
      writeFileSync(
        join(config, "skills", "review.md"),
        "---\nname: review\ndescription: Review a change with care\n---\nRead every line twice.\n",
      );
    },
  });
});
const editors: Editor[] = [];
afterAll(async () => {
  for (const e of editors) await e.close();
  await o?.stop();
  await o?.remove();
});

/** An editor that has initialized `ollie acp`. */
async function initialized(): Promise<Editor> {
  const editor = startEditor(o);
  editors.push(editor);
  await editor.connection.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
  return editor;
}

describe("ollie acp's commands and the editor's MCP servers", () => {
  it("offers /compact and a command per skill; /review loads the skill, and prompts with what follows", async () => {
    const editor = await initialized();
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: o.work,
      mcpServers: [],
    });
    await vi.waitFor(() => expect(editor.of(sessionId, "available_commands_update")).toHaveLength(1), WAIT);
    const [offered] = editor.of(sessionId, "available_commands_update");
    const review = () =>
      editor
        .of(sessionId, "available_commands_update")
        .at(-1)!
        .availableCommands.find((c) => c.name === "review");
    expect(offered!.availableCommands[0]!.name).toBe("compact");
    expect(review()?.description).toBe("load the skill: Review a change with care");

    o.mock.enqueue({ text: "Reviewed." });
    const answer = await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/review the notes, please" }],
    });
    expect(answer).toEqual({ stopReason: "end_turn" });
    expect(await o.read(`session/${sessionId}/agent/main/prompt.prev`)).toBe("the notes, please\n");
    expect(JSON.stringify(o.mock.lastRequest?.body)).toContain("Read every line twice.");
    await vi.waitFor(() => expect(editor.of(sessionId, "available_commands_update")).toHaveLength(2), WAIT);
    expect(review()?.description).toMatch(/^\(loaded\) /);
    // A slash that names no command is a prompt as it is.
    o.mock.enqueue({ text: "A path." });
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/usr/bin?" }],
    });
    expect(await o.read(`session/${sessionId}/agent/main/prompt.prev`)).toBe("/usr/bin?\n");
  });

  it("runs the editor's MCP server for the session alone: the agent calls its tool, in the sandbox", async () => {
    const editor = await initialized();
    const everything: McpServer = {
      name: "everything",
      command: process.execPath,
      args: [EVERYTHING, "stdio"],
      env: [],
    };
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: o.work,
      mcpServers: [everything],
    });
    o.mock.enqueue(
      { toolCalls: [{ name: "mcp__everything__get-sum", arguments: { a: 19, b: 23 } }] },
      { text: "It is 42." },
    );
    expect(
      await editor.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Add 19 and 23 with your tool." }],
      }),
    ).toEqual({ stopReason: "end_turn" });
    const [call] = editor.of(sessionId, "tool_call");
    expect(call).toMatchObject({ title: "mcp__everything__get-sum: 19", kind: "other" });
    const done = editor.of(sessionId, "tool_call_update").find((u) => u.status !== "in_progress");
    expect(done).toMatchObject({ status: "completed" });
    expect(JSON.stringify(done?.content)).toContain("42");

    // Another session does not have it.
    const other = await editor.connection.agent.request("session/new", { cwd: o.work, mcpServers: [] });
    expect(await o.read(`session/${other.sessionId}/agent/main/tools`)).not.toContain("mcp__everything__");
    expect(await o.read(`session/${sessionId}/agent/main/tools`)).toContain("mcp__everything__get-sum");
    // SSE is refused, naming the server.
    await expect(
      editor.connection.agent.request("session/new", {
        cwd: o.work,
        mcpServers: [{ type: "sse", name: "old", url: "http://127.0.0.1:1/sse", headers: [] }],
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("the MCP server old speaks SSE"),
    });
  });
});
