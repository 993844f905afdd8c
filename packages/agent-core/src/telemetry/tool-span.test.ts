import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ATTR, setCaptureMessageContent, traceCarrierOf } from "@ollie/telemetry";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, echoTool, heldTurn, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { installOtel, isChildOf, type Otel } from "../__fixtures__/otel.js";
import type { AgentHooks } from "../hooks/agent-hooks.js";

const dir = mkdtempSync(join(tmpdir(), "agent-core-tool-span-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let otel: Otel;
beforeEach(() => {
  otel = installOtel();
});
afterEach(() => otel.uninstall());

const toolSpans = () => otel.spans().filter((s) => s.name.startsWith("execute_tool "));

describe("a tool call's execute_tool span", () => {
  it("names the tool and the call, inside the turn, and is current for the tool that runs", async () => {
    let seen: { spanId?: string; traceparent?: string } = {};
    const probe = echoTool("probe", {
      run: () => {
        const span = trace.getActiveSpan();
        // What a tool server's client does: carry the trace on, and say how the process ended.
        span?.setAttribute(ATTR.toolExitCode, 0);
        seen = { spanId: span?.spanContext().spanId, traceparent: traceCarrierOf()?.traceparent };
        return "probed";
      },
    });
    const { agent } = await scriptedAgent([call("probe", { path: "a" }), { text: "ok" }], {
      tools: tools(probe),
      profile: "coder",
    });
    await agent.submit("go");
    const span = otel.span("execute_tool probe");
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(isChildOf(span, otel.span("invoke_agent coder"))).toBe(true);
    expect(span.attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "probe",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.call.id": "call_scripted_0",
      "gen_ai.agent.name": "coder",
      "ollie.tool.cached": false,
      "ollie.tool.exit_code": 0,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(seen.spanId).toBe(span.spanContext().spanId);
    expect(seen.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
  });

  it("says why each failed call failed", async () => {
    const hooks: AgentHooks = {
      run: async (event, payload) =>
        event === "preTool" && payload.tool === "guarded"
          ? { action: "block", output: "not today", warnings: [] }
          : { action: "continue", output: "", warnings: [] },
    };
    const set = tools(
      echoTool("guarded"),
      echoTool("read"),
      echoTool("slow", { timeoutMs: 20, run: () => new Promise<string>(() => {}) }),
      echoTool("broken", {
        run: () => {
          throw new Error("disk on fire");
        },
      }),
      echoTool("failing", { run: async () => ({ output: "no such file", isError: true }) }),
    );
    const { agent } = await scriptedAgent(
      [
        {
          toolCalls: [
            { name: "guarded", arguments: {} },
            { name: "read", arguments: "{not json" },
            { name: "read", arguments: { path: 5 } },
            { name: "slow", arguments: {} },
            { name: "broken", arguments: {} },
            { name: "failing", arguments: {} },
            { name: "read", arguments: { path: "fine" } },
          ],
        },
        { text: "ok" },
      ],
      { tools: set, hooks },
    );
    await agent.submit("go");
    expect(toolSpans().map((s) => [s.name, s.attributes["error.type"], s.status.code])).toEqual([
      ["execute_tool guarded", "refused", SpanStatusCode.ERROR],
      ["execute_tool read", "arguments", SpanStatusCode.ERROR],
      ["execute_tool read", "arguments", SpanStatusCode.ERROR],
      ["execute_tool slow", "timeout", SpanStatusCode.ERROR],
      ["execute_tool broken", "tool_error", SpanStatusCode.ERROR],
      ["execute_tool failing", "tool_error", SpanStatusCode.ERROR],
      ["execute_tool read", undefined, SpanStatusCode.UNSET],
    ]);
  });

  it("says a call the turn's interruption stopped was interrupted", async () => {
    const { agent, turn } = await heldTurn();
    agent.interrupt();
    expect((await turn).status).toBe("interrupted");
    expect(otel.span("execute_tool wait").attributes["error.type"]).toBe("interrupted");
  });

  it("says when the turn's read cache answered", async () => {
    writeFileSync(join(dir, "notes.txt"), "version 1");
    const reader = echoTool("file_read", {
      readSafe: true,
      cache: { pathArgument: "path" },
      run: (args) => readFileSync(join(dir, String(args.path)), "utf8"),
    });
    const read = call("file_read", { path: "notes.txt" });
    const { agent } = await scriptedAgent([read, read, { text: "ok" }], { tools: tools(reader), cwd: dir });
    await agent.submit("go");
    expect(toolSpans().map((s) => s.attributes["ollie.tool.cached"])).toEqual([false, true]);
  });

  it("calls an MCP server's tool an extension", async () => {
    const { agent } = await scriptedAgent([call("mcp__web__fetch"), { text: "ok" }], {
      tools: tools(echoTool("mcp__web__fetch")),
    });
    await agent.submit("go");
    expect(otel.span("execute_tool mcp__web__fetch").attributes["gen_ai.tool.type"]).toBe("extension");
  });

  it("carries the arguments and the result only when contents are captured", async () => {
    const run = async () => {
      const { agent } = await scriptedAgent([call("read", { path: "a" }), { text: "ok" }], {
        tools: tools(echoTool("read")),
      });
      await agent.submit("go");
      return toolSpans().at(-1)!.attributes;
    };
    const plain = await run();
    expect(plain["gen_ai.tool.call.arguments"]).toBeUndefined();
    expect(plain["gen_ai.tool.call.result"]).toBeUndefined();
    setCaptureMessageContent(true);
    expect(await run()).toMatchObject({
      "gen_ai.tool.call.arguments": '{"path":"a"}',
      "gen_ai.tool.call.result": 'read {"path":"a"}',
    });
  });
});
