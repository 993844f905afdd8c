import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL_VERSION, RequestError } from "@agentclientprotocol/sdk";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Editor, startEditor } from "./acp-editor.js";
import { askerFixture } from "./asker-fixture.js";
import { type Ollie, startOllie, WAIT } from "./harness.js";

// `ollie acp` as an editor drives it: the ACP SDK's client side over the command's standard input and
// output, against the real olliesrv (and its toolsrv, tools under Landlock) with the mock provider.

let o: Ollie;
let marker: string;
beforeAll(async () => {
  o = await startOllie("olliesrv-acp-", {
    setup: (config) => {
      marker = askerFixture(config, ["shell"], "asks to run things outside the sandbox");
    },
  });
});
afterAll(async () => {
  await o?.stop();
  await o?.remove();
});

const editors: Editor[] = [];
afterAll(async () => {
  for (const e of editors) await e.close();
});

/** An editor that has initialized `ollie acp`. */
async function initialized(args: readonly string[] = []): Promise<Editor> {
  const editor = startEditor(o, args);
  editors.push(editor);
  await editor.connection.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "test-editor", version: "1" },
  });
  return editor;
}

/** The processes under toolsrv whose command line has `text`. */
function processesWith(text: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("ollie acp", () => {
  it("initializes: protocol 1, sessions that load, text and embedded context, no authentication", async () => {
    const editor = startEditor(o);
    editors.push(editor);
    const answer = await editor.connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    expect(answer).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
      },
      authMethods: [],
      agentInfo: { name: "ollie", version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
    });
  });

  it("fails initialize, saying why, when olliesrv cannot be reached", async () => {
    const elsewhere = `unix!${join(o.root, "elsewhere", "ollie")}`;
    const editor = startEditor(o, [], elsewhere);
    editors.push(editor);
    await expect(
      editor.connection.agent.request("initialize", {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
      }),
    ).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^cannot reach olliesrv: .*nothing answers there/),
    });
  });

  it("runs a turn: the reply streams, a file edit in the sandbox is pending, in progress, then completed with its diff; end_turn", async () => {
    const editor = await initialized();
    const file = join(o.work, "notes.txt");
    writeFileSync(file, "colour: red\n");
    const session = await editor.connection.agent.request("session/new", { cwd: o.work, mcpServers: [] });
    const { sessionId } = session;
    expect(session.modes?.currentModeId).toBe("coding");
    expect(session.modes?.availableModes.map((m) => m.id)).toEqual(
      expect.arrayContaining(["coding", "asker"]),
    );
    expect(session.configOptions?.[0]).toMatchObject({
      id: "model",
      category: "model",
      currentValue: "mock-model",
    });
    o.mock.enqueue(
      {
        text: "I will fix the colour.",
        toolCalls: [
          { name: "file_edit", arguments: { path: "notes.txt", old_string: "red", new_string: "blue" } },
        ],
      },
      { text: "The colour is **blue** now.", chunkSize: 3 },
    );
    const answer = await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Make the colour blue." }],
    });
    expect(answer).toEqual({ stopReason: "end_turn" });
    expect(readFileSync(file, "utf8")).toBe("colour: blue\n");

    const said = editor
      .of(sessionId, "agent_message_chunk")
      .map((u) => (u.content.type === "text" ? u.content.text : ""));
    expect(said.length).toBeGreaterThan(1);
    expect(said.join("")).toBe("I will fix the colour.The colour is **blue** now.");
    const [call] = editor.of(sessionId, "tool_call");
    expect(call).toMatchObject({
      title: "file_edit: notes.txt",
      kind: "edit",
      status: "pending",
      locations: [{ path: file }],
      rawInput: { path: "notes.txt", old_string: "red", new_string: "blue" },
    });
    const updates = editor.of(sessionId, "tool_call_update").filter((u) => u.toolCallId === call!.toolCallId);
    expect(updates.map((u) => u.status)).toEqual(["in_progress", "completed"]);
    expect(updates[1]!.content?.[0]).toEqual({ type: "diff", path: file, oldText: "red", newText: "blue" });
    expect(editor.of(sessionId, "usage_update")).toEqual([
      expect.objectContaining({ size: 32_768, cost: { amount: 0, currency: "USD" } }),
    ]);
    // An ordinary session: the namespace shows it, with the editor's prompt.
    expect(await o.read(`session/${sessionId}/agent/main/prompt.prev`)).toContain("Make the colour blue.");
  });

  it("cancels a turn mid-tool: the prompt answers cancelled, the tool's process is gone", async () => {
    const editor = await initialized();
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: o.work,
      mcpServers: [],
    });
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 3141" } }] });
    const answer = editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Wait a long while." }],
    });
    await vi.waitFor(
      () => expect(editor.of(sessionId, "tool_call_update").map((u) => u.status)).toContain("in_progress"),
      WAIT,
    );
    await vi.waitFor(() => expect(processesWith("sleep\u00003141")).not.toEqual([]), WAIT);
    await editor.connection.agent.notify("session/cancel", { sessionId });
    expect(await answer).toEqual({ stopReason: "cancelled" });
    expect(processesWith("sleep\u00003141")).toEqual([]);
    expect(editor.of(sessionId, "tool_call_update").at(-1)).toMatchObject({ status: "failed" });
    expect((await o.read(`session/${sessionId}/agent/main/outcome`)).trim()).toBe("interrupted");
  });

  it("asks the editor for a bypass request: rejected, the agent is told; allowed, the operation runs", async () => {
    const editor = await initialized(["--agent", "asker"]);
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: o.work,
      mcpServers: [],
    });
    const ask = {
      name: "bypass_request",
      arguments: { operation: "touch_marker", reason: "a marker outside" },
    };
    o.mock.enqueue({ toolCalls: [ask] }, { text: "Refused, then." });
    expect(
      await editor.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Make the marker." }],
      }),
    ).toEqual({ stopReason: "end_turn" });
    expect(existsSync(marker)).toBe(false);
    expect(editor.asked).toHaveLength(1);
    expect(editor.asked[0]).toMatchObject({
      sessionId,
      toolCall: { kind: "execute", title: `run touch_marker outside the sandbox: touch ${marker}` },
      options: [{ kind: "allow_once" }, { kind: "allow_always" }, { kind: "reject_once" }],
    });
    // The request's tool call is the one the editor was shown.
    expect(editor.asked[0]!.toolCall.toolCallId).toBe(editor.of(sessionId, "tool_call")[0]!.toolCallId);
    expect(JSON.stringify(o.mock.lastRequest?.body)).toContain("rejected in the editor");

    editor.permission = async () => ({ outcome: { outcome: "selected", optionId: "allow-once" } });
    o.mock.enqueue({ toolCalls: [ask] }, { text: "Made." });
    expect(
      await editor.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Again." }],
      }),
    ).toEqual({ stopReason: "end_turn" });
    expect(existsSync(marker)).toBe(true);
    expect(editor.asked).toHaveLength(2);
  });

  it("loads a finished session: its history replayed as updates, then it takes prompts", async () => {
    const first = await initialized();
    const { sessionId } = await first.connection.agent.request("session/new", {
      cwd: o.work,
      mcpServers: [],
    });
    o.mock.enqueue(
      { toolCalls: [{ name: "shell", arguments: { command: "echo listed" } }] },
      { text: "Listed it." },
    );
    await first.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "List it." }],
    });
    expect(await first.close()).toBe(0);

    const editor = await initialized();
    const loaded = await editor.connection.agent.request("session/load", {
      sessionId,
      cwd: o.work,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("coding");
    // The commands are told beside the history, whenever they come.
    const kinds = editor.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate !== "available_commands_update")
      .map((n) => n.update.sessionUpdate);
    expect(kinds).toEqual(["user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]);
    expect(editor.of(sessionId, "user_message_chunk")[0]!.content).toEqual({
      type: "text",
      text: "List it.",
    });
    expect(editor.of(sessionId, "tool_call_update")[0]).toMatchObject({ status: "completed" });
    o.mock.enqueue({ text: "Still here." });
    expect(
      await editor.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Still?" }],
      }),
    ).toEqual({ stopReason: "end_turn" });
  });

  it("switches the mode (the profile) and the model; refuses one it does not have", async () => {
    const editor = await initialized();
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: o.work,
      mcpServers: [],
    });
    await editor.connection.agent.request("session/set_mode", { sessionId, modeId: "asker" });
    expect(await o.read(`session/${sessionId}/agent/main/cfg`)).toContain("profile=asker");
    await expect(
      editor.connection.agent.request("session/set_mode", { sessionId, modeId: "no-such-profile" }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("no profile no-such-profile") });
    const { configOptions } = await editor.connection.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "other-model",
    });
    expect(configOptions[0]).toMatchObject({ currentValue: "other-model" });
    expect(await o.read(`session/${sessionId}/agent/main/cfg`)).toContain("model=other-model");
  });

  it("answers bad input with JSON-RPC errors, and goes on: an unknown session, a second prompt, an unknown method, a relative cwd", async () => {
    const editor = await initialized();
    const agent = editor.connection.agent;
    await expect(
      agent.request("session/prompt", { sessionId: "1-nosuch", prompt: [{ type: "text", text: "Hi" }] }),
    ).rejects.toMatchObject({ code: -32002 });
    await expect(agent.request("session/new", { cwd: "relative/dir", mcpServers: [] })).rejects.toMatchObject(
      {
        code: -32602,
        message: expect.stringContaining("cwd must be an absolute path"),
      },
    );
    await expect(agent.request("ollie/nothing", {})).rejects.toBeInstanceOf(RequestError);
    const { sessionId } = await agent.request("session/new", { cwd: o.work, mcpServers: [] });
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 2718" } }] });
    const running = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Wait." }] });
    await vi.waitFor(() => expect(editor.of(sessionId, "tool_call")).toHaveLength(1), WAIT);
    await expect(
      agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "And this?" }] }),
    ).rejects.toMatchObject({ code: -32600, message: expect.stringContaining("a prompt is running") });
    await agent.notify("session/cancel", { sessionId });
    expect(await running).toEqual({ stopReason: "cancelled" });
    await expect(
      agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("image content") });
    // Nothing but protocol messages on standard output.
    expect(editor.transcript.every((l) => l.message.jsonrpc === "2.0")).toBe(true);
  });

  it("answers a line that is not JSON, or a batch, with an error, and goes on", async () => {
    const editor = await initialized();
    editor.child.stdin!.write("{this is not json\n");
    editor.child.stdin!.write('[{"jsonrpc":"2.0","id":90,"method":"session/new","params":{}}]\n');
    await vi.waitFor(() => {
      const errors = editor.transcript.filter((l) => l.from === "agent" && l.message.error !== undefined);
      expect(errors.map((l) => (l.message.error as { code: number }).code)).toEqual([-32700, -32600]);
    }, WAIT);
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: o.work,
      mcpServers: [],
    });
    expect(sessionId).toMatch(/^\d+-/);
  });
});
