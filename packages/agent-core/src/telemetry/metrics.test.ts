import { BUCKETS } from "@ollie/telemetry";
import { DataPointType, type MetricData } from "@opentelemetry/sdk-metrics";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { histogramPoints, installOtel, type Otel } from "../__fixtures__/otel.js";

let otel: Otel;
beforeEach(() => {
  otel = installOtel();
});
afterEach(() => otel.uninstall());

const chat = {
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": "scripted",
  "gen_ai.request.model": "scripted-model",
  "gen_ai.response.model": "scripted-model",
};

/** Every attribute value of every point of every metric. */
const attributeValues = (all: Map<string, MetricData>) =>
  [...all.values()].flatMap((m) => m.dataPoints.flatMap((p) => Object.values(p.attributes)));

describe("the metrics of a turn", () => {
  it("are the conventions' histograms, in their units and buckets, and Ollie's counters", async () => {
    const failing = echoTool("grep", { run: async () => ({ output: "no match", isError: true }) });
    const { agent } = await scriptedAgent(
      [
        { ...call("grep", { path: "x" }), usage: { input: 100, output: 8, cost: 0.25 } },
        { text: "Nothing there.", usage: { input: 130, output: 4, cost: 0.5 } },
      ],
      { tools: tools(failing), profile: "coder", name: "glenda" },
    );
    await agent.submit("Find x");
    const all = await otel.metrics();

    const tokens = all.get("gen_ai.client.token.usage")!;
    expect(tokens.descriptor).toMatchObject({ unit: "{token}" });
    expect(tokens.dataPointType).toBe(DataPointType.HISTOGRAM);
    const points = histogramPoints(tokens);
    expect(points.map((p) => [p.attributes, p.value.sum, p.value.count])).toEqual([
      [{ ...chat, "gen_ai.token.type": "input" }, 230, 2],
      [{ ...chat, "gen_ai.token.type": "output" }, 12, 2],
    ]);
    expect(points[0]!.value.buckets.boundaries).toEqual(BUCKETS.tokens);

    const seconds = {
      "gen_ai.client.operation.duration": BUCKETS.operationSeconds,
      "gen_ai.client.operation.time_to_first_chunk": BUCKETS.operationSeconds,
      "gen_ai.invoke_agent.duration": BUCKETS.agentSeconds,
      "gen_ai.execute_tool.duration": BUCKETS.operationSeconds,
    };
    for (const [name, buckets] of Object.entries(seconds)) {
      const metric = all.get(name);
      expect(metric?.descriptor.unit, name).toBe("s");
      expect(histogramPoints(metric)[0]!.value.buckets.boundaries, name).toEqual(buckets);
    }
    expect(histogramPoints(all.get("gen_ai.client.operation.duration")).map((p) => p.attributes)).toEqual([
      chat,
    ]);
    expect(histogramPoints(all.get("gen_ai.client.operation.duration"))[0]!.value.count).toBe(2);
    expect(histogramPoints(all.get("gen_ai.execute_tool.duration")).map((p) => p.attributes)).toEqual([
      {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "grep",
        "gen_ai.tool.type": "function",
        "gen_ai.agent.name": "coder",
        "error.type": "tool_error",
      },
    ]);

    const failures = all.get("ollie.tool.failures")!;
    expect(failures.descriptor.unit).toBe("{call}");
    expect(failures.dataPoints.map((p) => [p.attributes, p.value])).toEqual([
      [{ "gen_ai.tool.name": "grep", "error.type": "tool_error" }, 1],
    ]);

    const cost = all.get("ollie.cost.usage")!;
    expect(cost.descriptor.unit).toBe("USD");
    expect(cost.dataPointType).toBe(DataPointType.SUM);
    expect(cost.dataPoints.map((p) => [p.attributes, p.value])).toEqual([
      [
        {
          "gen_ai.agent.name": "coder",
          "ollie.backend": "scripted",
          "gen_ai.provider.name": "scripted",
          "gen_ai.request.model": "scripted-model",
        },
        0.75,
      ],
    ]);

    // Few values per attribute: never a session, an agent's own name or id.
    const values = attributeValues(all);
    for (const own of [agent.sessionId, agent.id, "glenda"]) expect(values).not.toContain(own);
  });

  it("count what a compaction's summary cost", async () => {
    const { agent } = await scriptedAgent(
      [
        { text: "One.", usage: { cost: 0.1 } },
        { text: "Two.", usage: { cost: 0.1 } },
        {
          text: JSON.stringify({ objective: "o", constraints: [], decisions: [] }),
          usage: { cost: 0.05 },
        },
      ],
      { compaction: { auto: false, hotMessages: 1 } },
    );
    await agent.submit("one");
    await agent.submit("two");
    expect(await agent.compact()).toBe(true);
    const cost = (await otel.metrics()).get("ollie.cost.usage")!;
    expect(cost.dataPoints.map((p) => p.value)).toEqual([expect.closeTo(0.25, 9)]);
  });
});
