import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Editor, startEditor, type TranscriptLine } from "./acp-editor.js";
import { type Ollie, startOllie, WAIT } from "./harness.js";

// One whole editor session with `ollie acp`, every line of it both ways checked against the protocol's
// published JSON Schema (the one the ACP SDK ships): each message against its side's message schema, each
// response against the response of the method it answers, each update against SessionNotification.

const schemaFile = createRequire(import.meta.url).resolve("@agentclientprotocol/sdk/schema/v1/schema.json");
const schema = JSON.parse(readFileSync(schemaFile, "utf8"));
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(schema, "acp");
const check = (ref: string, value: unknown) => {
  const validate = ajv.getSchema(`acp${ref}`);
  if (!validate) throw new Error(`the schema has no ${ref}`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${ref}${e.instancePath} ${e.message}`);
};

/** The definition of each method's params, both ways. */
const PARAMS: Record<string, string> = {
  initialize: "InitializeRequest",
  "session/new": "NewSessionRequest",
  "session/load": "LoadSessionRequest",
  "session/prompt": "PromptRequest",
  "session/set_mode": "SetSessionModeRequest",
  "session/set_config_option": "SetSessionConfigOptionRequest",
  "session/cancel": "CancelNotification",
  "session/update": "SessionNotification",
  "session/request_permission": "RequestPermissionRequest",
};

/** The definition of each method's response. */
const RESPONSES: Record<string, string> = {
  initialize: "InitializeResponse",
  "session/new": "NewSessionResponse",
  "session/load": "LoadSessionResponse",
  "session/prompt": "PromptResponse",
  "session/set_mode": "SetSessionModeResponse",
  "session/set_config_option": "SetSessionConfigOptionResponse",
  "session/request_permission": "RequestPermissionResponse",
};

/** What is wrong with a transcript's lines, by the schema: nothing, for a conforming one. */
function problems(transcript: readonly TranscriptLine[]): string[] {
  const found: string[] = [];
  const asked = new Map<string, string>();
  for (const [i, { from, message }] of transcript.entries()) {
    const side = from === "agent" ? "/anyOf/0" : "/anyOf/1";
    const at = (p: string) =>
      `line ${i} (${from} ${String(message.method ?? `response ${message.id}`)}): ${p}`;
    found.push(...check(`#${side}`, message).map(at));
    if (typeof message.method === "string" && message.id !== undefined)
      asked.set(`${from}:${String(message.id)}`, message.method);
    const params = typeof message.method === "string" ? PARAMS[message.method] : undefined;
    if (params) found.push(...check(`#/$defs/${params}`, message.params).map(at));
    if (message.method === undefined && "result" in message) {
      const method = asked.get(`${from === "agent" ? "editor" : "agent"}:${String(message.id)}`);
      const response = method && RESPONSES[method];
      if (response) found.push(...check(`#/$defs/${response}`, message.result).map(at));
    }
  }
  return found;
}

let o: Ollie;
let editor: Editor;
beforeAll(async () => {
  o = await startOllie("olliesrv-acp-schema-", {
    setup: (config) => {
      writeFileSync(
        join(config, "bypass.yaml"),
        `operations:\n  - name: say_hi\n    argv: [echo, hi]\n    timeout: 30\n`,
      );
      mkdirSync(join(config, "agents"), { recursive: true });
      writeFileSync(
        join(config, "agents", "asker.json"),
        JSON.stringify({ prompt: ["echo You ask."], autoLoad: ["bypass_request", "shell"] }),
      );
    },
  });
  editor = startEditor(o, ["--agent", "asker"]);
});
afterAll(async () => {
  await editor?.close();
  await o?.stop();
  await o?.remove();
});

describe("ollie acp's transcript", () => {
  it("conforms to the protocol's JSON Schema, line by line, over a whole session", async () => {
    const agent = editor.connection.agent;
    await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", { cwd: o.work, mcpServers: [] });
    await vi.waitFor(() => expect(editor.of(sessionId, "available_commands_update")).toHaveLength(1), WAIT);

    // A turn with reasoning, a tool call that runs until the test says, a plan changed meanwhile, a reply.
    o.mock.enqueue(
      {
        reasoning: "The file named go is the signal.",
        text: "Waiting for the signal.",
        toolCalls: [
          { name: "shell", arguments: { command: "while [ ! -e go ]; do sleep 0.05; done; echo went" } },
        ],
      },
      { text: "It went." },
    );
    const first = agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "Wait for the signal." },
        {
          type: "resource",
          resource: { uri: `file://${o.work}/notes.md`, text: "# Notes\n", mimeType: "text/markdown" },
        },
      ],
    });
    await vi.waitFor(() => expect(editor.of(sessionId, "tool_call_update")).toHaveLength(1), WAIT);
    const fsys = o.fsys;
    await fsys.writeFile(`session/${sessionId}/plan`, "- [x] look\n- [ ] signal\n- [ ] report\n");
    await vi.waitFor(() => expect(editor.of(sessionId, "plan")).toHaveLength(1), WAIT);
    writeFileSync(join(o.work, "go"), "");
    expect(await first).toEqual({ stopReason: "end_turn" });
    expect(editor.of(sessionId, "plan")[0]!.entries.map((e) => e.status)).toEqual([
      "completed",
      "in_progress",
      "pending",
    ]);
    expect(editor.of(sessionId, "agent_thought_chunk").length).toBeGreaterThan(0);

    // An approval asked and given.
    editor.permission = async () => ({ outcome: { outcome: "selected", optionId: "allow-always" } });
    o.mock.enqueue(
      { toolCalls: [{ name: "bypass_request", arguments: { operation: "say_hi", reason: "to greet" } }] },
      { text: "Greeted." },
    );
    await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Greet." }] });
    expect(editor.asked).toHaveLength(1);

    // A mode switch, the model, the session loaded again, and a cancelled turn.
    await agent.request("session/set_config_option", { sessionId, configId: "model", value: "other-model" });
    await agent.request("session/load", { sessionId, cwd: o.work, mcpServers: [] });
    await agent.request("session/set_mode", { sessionId, modeId: "coding" });
    o.mock.enqueue({ toolCalls: [{ name: "shell", arguments: { command: "sleep 1618" } }] });
    const cut = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Wait." }] });
    await vi.waitFor(() => expect(editor.of(sessionId, "tool_call").length).toBeGreaterThan(3), WAIT);
    await agent.notify("session/cancel", { sessionId });
    expect(await cut).toEqual({ stopReason: "cancelled" });

    const kinds = new Set(editor.updates.map((n) => n.update.sessionUpdate));
    expect([...kinds].sort()).toEqual(
      [
        "agent_message_chunk",
        "agent_thought_chunk",
        "available_commands_update",
        "plan",
        "tool_call",
        "tool_call_update",
        "usage_update",
        "user_message_chunk",
      ].sort(),
    );
    expect(editor.transcript.length).toBeGreaterThan(40);
    expect(problems(editor.transcript)).toEqual([]);
  });

  it("would see a line that breaks the schema", () => {
    const broken: TranscriptLine[] = [
      { from: "editor", message: { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/" } } },
      {
        from: "agent",
        message: { jsonrpc: "2.0", id: 1, result: { sessionId: 7 } },
      },
      {
        from: "agent",
        message: {
          jsonrpc: "2.0",
          method: "session/update",
          params: { sessionId: "s", update: { sessionUpdate: "tool_call", status: "running" } },
        },
      },
    ];
    const found = problems(broken);
    expect(found.some((p) => p.startsWith("line 0") && p.includes("NewSessionRequest"))).toBe(true);
    expect(found.some((p) => p.startsWith("line 1") && p.includes("NewSessionResponse"))).toBe(true);
    expect(found.some((p) => p.startsWith("line 2") && p.includes("SessionNotification"))).toBe(true);
  });
});
