import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpanKind } from "@opentelemetry/api";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { installOtel, isChildOf, type Otel } from "../__fixtures__/otel.js";
import type { AgentHooks, HookResult } from "../hooks/agent-hooks.js";
import { shellHooks } from "../hooks/shell-hooks.js";

const dir = mkdtempSync(join(tmpdir(), "agent-core-hook-span-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let otel: Otel;
beforeEach(() => {
  otel = installOtel();
});
afterEach(() => otel.uninstall());

describe("a hook's span", () => {
  it("holds an event's hooks where they run, with what they decided and how many warnings they gave", async () => {
    const said: Record<string, HookResult> = {
      preTurn: { action: "continue", output: "", warnings: ["slow disk", "old config"] },
      preTool: { action: "continue", output: "", warnings: [] },
      postTool: { action: "block", output: "redacted", warnings: [] },
    };
    const hooks: AgentHooks = {
      handles: (event) => event !== "postTurn",
      run: async (event) => said[event] ?? { action: "continue", output: "", warnings: [] },
    };
    const { agent } = await scriptedAgent([call("read"), { text: "ok" }], {
      tools: tools(echoTool("read")),
      hooks,
    });
    await agent.submit("go");
    const turn = otel.span("invoke_agent");
    const tool = otel.span("execute_tool read");
    const pre = otel.span("ollie.hook preTurn");
    expect(pre.kind).toBe(SpanKind.INTERNAL);
    expect(isChildOf(pre, turn)).toBe(true);
    expect(pre.attributes).toEqual({
      "ollie.hook.event": "preTurn",
      "ollie.hook.action": "continue",
      "ollie.hook.warnings": 2,
    });
    for (const name of ["ollie.hook preTool", "ollie.hook postTool"])
      expect(isChildOf(otel.span(name), tool)).toBe(true);
    expect(otel.span("ollie.hook postTool").attributes["ollie.hook.action"]).toBe("block");
    // An event no hook handles makes no span.
    expect(otel.spans().filter((s) => s.name === "ollie.hook postTurn")).toEqual([]);
  });

  it("holds the turnError hook, under the request that failed, saying whether it took the failure over", async () => {
    const hooks: AgentHooks = { turnError: async () => true };
    const { agent } = await scriptedAgent([{ fault: { type: "auth" } }], { hooks });
    expect((await agent.submit("go")).status).toBe("handled");
    const hook = otel.span("ollie.hook turnError");
    expect(hook.attributes).toMatchObject({
      "ollie.hook.event": "turnError",
      "ollie.hook.action": "handled",
    });
    expect(isChildOf(hook, otel.span("chat scripted-model"))).toBe(true);
  });

  it("is a shell hook's TRACEPARENT, so that what the hook does joins the trace", async () => {
    const { agent, backend } = await scriptedAgent([{ text: "ok" }], {
      hooks: shellHooks({ preTurn: 'printf "%s" "$TRACEPARENT"' }, { cwd: dir }),
    });
    await agent.submit("go");
    const hook = otel.span("ollie.hook preTurn").spanContext();
    // A preTurn hook's output joins the prompt.
    expect(backend.calls[0]!.messages.at(-1)?.content).toContain(`00-${hook.traceId}-${hook.spanId}-01`);
  });
});
