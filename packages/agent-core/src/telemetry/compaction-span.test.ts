import { estimateTokens } from "@ollie/backends";
import type { MockReply, ScriptedCall } from "@ollie/backends/testing";
import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { installOtel, isChildOf, type Otel } from "../__fixtures__/otel.js";
import { COMPACTION_INSTRUCTIONS } from "../compaction/summary.js";
import type { AgentHooks } from "../hooks/agent-hooks.js";

let otel: Otel;
beforeEach(() => {
  otel = installOtel();
});
afterEach(() => otel.uninstall());

const SUMMARY = JSON.stringify({ objective: "Survey", constraints: [], decisions: ["it is a monorepo"] });

/** A model that reads file after file (big results) until `rounds`, and writes `summary` when asked. */
function surveyor(rounds: number, summary = SUMMARY) {
  let n = 0;
  return (c: ScriptedCall): MockReply => {
    const usage = { input: estimateTokens(c.messages, c.tools), output: 20 };
    if (c.messages[0]?.content === COMPACTION_INSTRUCTIONS) return { text: summary, usage };
    n++;
    return n <= rounds
      ? { text: `Reading file ${n}.`, toolCalls: [{ name: "read", arguments: { n } }], usage }
      : { text: "Done surveying.", usage };
  };
}

const survey = (extra: Parameters<typeof scriptedAgent>[1] = {}, summary?: string) =>
  scriptedAgent(surveyor(12, summary), {
    tools: tools(echoTool("read", { run: (args) => `file ${args.n}\n${"line of text\n".repeat(120)}` })),
    contextLength: 8000,
    safety: { replanRounds: 100 },
    ...extra,
  });

const hooks: AgentHooks = { run: async () => ({ action: "continue", output: "", warnings: [] }) };

describe("a compaction's span", () => {
  it("sits in the turn that needed it, holding its hooks and its summary request, with the sizes", async () => {
    const { agent } = await survey({ hooks });
    expect((await agent.submit("Survey the repository")).status).toBe("done");
    const turn = otel.span("invoke_agent");
    const compactions = otel.spans().filter((s) => s.name === "ollie.compaction");
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    const compaction = compactions[0]!;
    expect(isChildOf(compaction, turn)).toBe(true);
    expect(compaction.attributes).toMatchObject({
      "ollie.compaction.trigger": "threshold",
      "ollie.compaction.compacted": true,
    });
    const before = compaction.attributes["ollie.compaction.tokens_before"] as number;
    const after = compaction.attributes["ollie.compaction.tokens_after"] as number;
    expect(after).toBeLessThan(before);
    const inside = otel.spans().filter((s) => isChildOf(s, compaction));
    expect(inside.map((s) => s.name)).toEqual([
      "ollie.hook preCompact",
      "chat scripted-model",
      "ollie.hook postCompact",
    ]);
    expect(inside[1]!.attributes["ollie.purpose"]).toBe("compaction");
  });

  it("says when it was asked for, and why it failed or was refused", async () => {
    const { agent } = await survey({ compaction: { auto: false } }, "not a summary");
    await agent.submit("Survey the repository");
    expect(await agent.compact()).toBe(false);
    const failed = otel.span("ollie.compaction");
    expect(failed.parentSpanContext).toBeUndefined();
    expect(failed.attributes).toMatchObject({
      "ollie.compaction.trigger": "command",
      "ollie.compaction.compacted": false,
      "error.type": "CompactionSummaryError",
    });
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);

    const refused = await survey({
      compaction: { auto: false },
      spending: { beforeRequest: (r) => (r.purpose === "compaction" ? "no money for summaries" : undefined) },
    });
    await refused.agent.submit("Survey the repository");
    await refused.agent.compact();
    expect(
      otel
        .spans()
        .filter((s) => s.name === "ollie.compaction")
        .at(-1)!.attributes,
    ).toMatchObject({
      "ollie.compaction.compacted": false,
      "ollie.compaction.refusal": "no money for summaries",
    });
  });
});
