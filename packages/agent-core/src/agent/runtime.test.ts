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
