import { ScriptedBackend } from "@ollie/backends/testing";
import { describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent } from "../__fixtures__/agents.js";
import { ToolSet } from "../tools/tool-set.js";

describe("the runtime", () => {
  it("lists the tools again after a round that changed them, and renders the preamble anew", async () => {
    const set = new ToolSet();
    set.add(
      echoTool("tool_load", {
        run: (args) => {
          set.add(echoTool(String(args.name)));
          return `loaded ${args.name}`;
        },
      }),
    );
    const { agent, backend } = await scriptedAgent(
      [call("tool_load", { name: "grep" }), call("grep", { pattern: "TODO" }), { text: "none left" }],
      { tools: set, prompt: (tools) => `You have ${tools.length} tools.` },
    );
    expect((await agent.submit("find TODOs")).status).toBe("done");
    expect(backend.calls.map((c) => c.tools.map((t) => t.name))).toEqual([
      ["tool_load"],
      ["tool_load", "grep"],
      ["tool_load", "grep"],
    ]);
    expect(backend.calls.map((c) => c.messages[0]!.content)).toEqual([
      "You have 1 tools.",
      "You have 2 tools.",
      "You have 2 tools.",
    ]);
  });
});

describe("updating the runtime", () => {
  it("takes a new prompt and backend for the next request and keeps the history", async () => {
    const { agent, backend } = await scriptedAgent([{ text: "one" }], { prompt: "first" });
    await agent.submit("a");
    const next = new ScriptedBackend({ replies: [{ text: "two" }] });
    await agent.updateRuntime({ prompt: "second", backend: next });
    await agent.submit("b");
    expect(backend.calls).toHaveLength(1);
    expect(next.calls[0]!.messages[0]).toEqual({ role: "system", content: "second" });
    expect(next.calls[0]!.messages.slice(1).map((m) => m.content)).toEqual(["a", "one", "b"]);
  });
});
