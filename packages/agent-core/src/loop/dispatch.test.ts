import { describe, expect, it } from "vitest";
import { call, echoTool, scriptedAgent, tools } from "../__fixtures__/agents.js";
import { ToolSet } from "../tools/tool-set.js";

const ms = (n: number) => new Promise((r) => setTimeout(r, n));

describe("dispatching a round of calls", () => {
  it("runs read-safe calls together while a write waits for them, and keeps the model's order", async () => {
    let reading = 0;
    let mostAtOnce = 0;
    const log: string[] = [];
    const read = echoTool("read", {
      readSafe: true,
      run: async (args) => {
        reading++;
        mostAtOnce = Math.max(mostAtOnce, reading);
        log.push(`start ${args.path}`);
        // Each read waits until all three have started: only possible if they run at once.
        while (mostAtOnce < 3) await ms(1);
        await ms(5);
        reading--;
        log.push(`end ${args.path}`);
        return `contents of ${args.path}`;
      },
    });
    const write = echoTool("write", {
      run: (args) => {
        log.push(`write while ${reading} reads run`);
        return `wrote ${args.path}`;
      },
    });
    const { agent, of } = await scriptedAgent(
      [
        {
          toolCalls: [
            { name: "read", arguments: { path: "a" } },
            { name: "read", arguments: { path: "b" } },
            { name: "read", arguments: { path: "c" } },
            { name: "write", arguments: { path: "d" } },
          ],
        },
        { text: "done" },
      ],
      { tools: tools(read, write) },
    );
    await agent.submit("go");
    expect(mostAtOnce).toBe(3);
    expect(log.at(-1)).toBe("write while 0 reads run");
    expect(of("tool").map((e) => e.result.content)).toEqual([
      "contents of a",
      "contents of b",
      "contents of c",
      "wrote d",
    ]);
    expect(of("state").map((e) => e.state)).toEqual([
      "thinking",
      "calling: read, read, read",
      "calling: write",
      "thinking",
      "idle",
    ]);
  });

  it("never runs a tool that does not say it is read-safe alongside another", async () => {
    let running = 0;
    let mostAtOnce = 0;
    const edit = echoTool("edit", {
      run: async () => {
        mostAtOnce = Math.max(mostAtOnce, ++running);
        await ms(5);
        running--;
        return "edited";
      },
    });
    const { agent } = await scriptedAgent(
      [{ toolCalls: [1, 2, 3].map((n) => ({ name: "edit", arguments: { n } })) }, { text: "ok" }],
      { tools: tools(edit) },
    );
    await agent.submit("go");
    expect(mostAtOnce).toBe(1);
  });

  it("turns a throwing tool, a timeout, a tool that ignores its signal, bad arguments and an unknown tool into error results", async () => {
    const set = new ToolSet([
      echoTool("boom", {
        run: () => {
          throw new Error("disk on fire");
        },
      }),
      echoTool("hang", { timeoutMs: 50, run: () => new Promise(() => {}) }),
    ]);
    const { agent, of } = await scriptedAgent(
      [
        {
          toolCalls: [
            { name: "boom", arguments: {} },
            { name: "hang", arguments: {} },
            { name: "boom", arguments: "{not json" },
            { name: "missing", arguments: {} },
          ],
        },
        { text: "I see." },
      ],
      { tools: set },
    );
    expect((await agent.submit("go")).status).toBe("done");
    const results = of("tool").map((e) => e.result);
    expect(results.every((r) => r.isError)).toBe(true);
    expect(results.map((r) => r.content)).toEqual([
      "boom failed: disk on fire",
      "hang was stopped after 0.05 s without finishing",
      expect.stringMatching(
        /^boom was not run: the arguments are not valid JSON: .*Send the arguments as one JSON object\.$/,
      ),
      "missing failed: no tool named 'missing'",
    ]);
  });

  it("checks arguments against the tool's JSON Schema first: a wrong call is not run, and says what to fix", async () => {
    const runs: unknown[] = [];
    const weather = echoTool("weather", {
      parameters: {
        type: "object",
        properties: {
          city: { type: "string" },
          units: { enum: ["metric", "imperial"] },
          days: { type: "integer", minimum: 1 },
        },
        required: ["city"],
        additionalProperties: false,
        "x-vendor-hint": "unknown keywords are allowed",
      },
      run: (args) => {
        runs.push(args);
        return "sunny";
      },
    });
    const { agent, of } = await scriptedAgent(
      [
        {
          toolCalls: [
            { name: "weather", arguments: { units: "kelvin", days: 0, extra: true } },
            { name: "weather", arguments: { city: 7 } },
            { name: "weather", arguments: { city: "Oslo", units: "metric", days: 3 } },
          ],
        },
        { text: "ok" },
      ],
      { tools: tools(weather) },
    );
    await agent.submit("go");
    const results = of("tool").map((e) => e.result);
    expect(results.map((r) => r.content)).toEqual([
      "weather was not run: its arguments do not fit its schema: the arguments lack the required field 'city'; " +
        'the arguments have a field the tool does not take: \'extra\'; units must be one of ["metric","imperial"]; ' +
        "days must be >= 1. Call it again with arguments that do.",
      "weather was not run: its arguments do not fit its schema: city must be string. Call it again with arguments that do.",
      "sunny",
    ]);
    expect(results.map((r) => r.isError === true)).toEqual([true, true, false]);
    expect(runs).toEqual([{ city: "Oslo", units: "metric", days: 3 }]);
  });

  it("checks schemas of draft 2020-12 as well as draft-07", async () => {
    const pair = echoTool("pair", {
      parameters: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] } },
        required: ["point"],
      },
    });
    const { agent, of } = await scriptedAgent(
      [{ toolCalls: [{ name: "pair", arguments: { point: ["x", 2] } }] }, { text: "ok" }],
      { tools: tools(pair) },
    );
    await agent.submit("go");
    expect(of("tool")[0]!.result).toMatchObject({
      isError: true,
      content: expect.stringContaining("point.0 must be number"),
    });
  });

  it("runs a tool whose schema cannot be compiled, unchecked", async () => {
    const odd = echoTool("odd", {
      parameters: { type: "object", properties: { a: { type: "no-such-type" } } },
    });
    const { agent, of } = await scriptedAgent([call("odd"), { text: "ok" }], { tools: tools(odd) });
    await agent.submit("go");
    expect(of("tool")[0]!.result.isError).toBeUndefined();
  });

  it("caps what the model sees of a large output, keeping its start and end", async () => {
    const big = echoTool("dump", { run: () => `START${"x".repeat(100_000)}END` });
    const { agent, backend } = await scriptedAgent([call("dump"), { text: "ok" }], { tools: tools(big) });
    await agent.submit("go");
    const seen = backend.calls[1]!.messages.at(-1)!.content;
    expect(Buffer.byteLength(seen)).toBeLessThan(32 * 1024 + 200);
    expect(seen.startsWith("START")).toBe(true);
    expect(seen.endsWith("END")).toBe(true);
    expect(seen).toMatch(/\[output truncated: [\d,]+ of 100,008 bytes cut from the middle\]/);
  });
});
