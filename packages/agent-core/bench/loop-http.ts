import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { Agent as PiAgent } from "@mariozechner/pi-agent-core";
import { OpenAiBackend } from "@ollie/backends";
import { MockLlmServer, type MockReply } from "@ollie/backends/testing";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import { Type } from "typebox";
import { request } from "undici";
import { Agent, ToolSet } from "../src/index.js";
import { PI_MODEL } from "./idle-heap.js";
import { addSummaryRow, interleaved, minMedian, type Summary, summarize } from "./stats.js";

/**
 * A whole prompt → tool call → result → answer over loopback HTTP to the mock OpenAI-compatible server (two
 * streamed requests), against the same two requests made with bare `undici.request` (the client our backend
 * uses) and bare `fetch`, and against pi-agent-core and the AI SDK doing the same run on the same server;
 * interleaved, every run checked.
 */
const ROUNDS = 200;
const WARMUP = 20;

const SCRIPT: MockReply[] = [
  { toolCalls: [{ name: "noop", arguments: { path: "README.md" } }], chunkSize: 8 },
  { text: "The README says hello.", chunkSize: 8 },
];
const PROMPT = "What does the README say?";
const SYSTEM = "You are brief.";

export async function loopHttp(): Promise<string> {
  const server = await MockLlmServer.start();
  try {
    return await measure(server);
  } finally {
    await server.close();
  }
}

async function measure(server: MockLlmServer): Promise<string> {
  const baseUrl = server.baseUrl("openai");
  const noop = new ToolSet([
    {
      name: "noop",
      description: "Does nothing",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      run: () => "ok",
    },
  ]);
  const backend = new OpenAiBackend({ baseUrl, model: "gpt-5-mini", apiKey: "sk-bench" });

  /** Times `run` over the script, and checks it made both requests. */
  const timed = async (run: () => Promise<unknown>) => {
    server.enqueue(...SCRIPT);
    const asked = server.requests.length;
    const start = performance.now();
    await run();
    const took = performance.now() - start;
    if (server.requests.length !== asked + 2) throw new Error("a run did not make its two requests");
    return took;
  };

  const ours = async () => {
    const agent = await Agent.create({ backend, tools: noop, prompt: SYSTEM });
    return timed(async () => {
      const outcome = await agent.submit(PROMPT);
      if (outcome.status !== "done")
        throw new Error(`the turn ended ${outcome.status}`, {
          cause: outcome.status === "error" ? outcome.error : outcome,
        });
    });
  };

  const piModel = PI_MODEL(baseUrl);
  const piTool = {
    name: "noop",
    label: "noop",
    description: "Does nothing",
    parameters: Type.Object({ path: Type.String() }),
    execute: async () => ({ content: [{ type: "text" as const, text: "ok" }], details: {} }),
  };
  const pi = async () => {
    const agent = new PiAgent({
      initialState: { systemPrompt: SYSTEM, model: piModel, tools: [piTool] },
      getApiKey: async () => "sk-bench",
    });
    return timed(async () => {
      await agent.prompt(PROMPT);
      if (agent.state.messages.length !== 4) throw new Error("pi-agent-core did not finish the run");
    });
  };

  const provider = createOpenAICompatible({ name: "mock", baseURL: baseUrl, apiKey: "sk-bench" });
  const aiTools = {
    noop: tool({
      description: "Does nothing",
      inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } } }),
      execute: async () => "ok",
    }),
  };
  const aiSdk = () =>
    timed(async () => {
      const result = streamText({
        model: provider.chatModel("gpt-5-mini"),
        system: SYSTEM,
        prompt: PROMPT,
        tools: aiTools,
        stopWhen: stepCountIs(5),
      });
      if ((await result.text) !== "The README says hello.")
        throw new Error("the AI SDK did not finish the run");
    });

  // The same two requests, with the bodies our agent sent, each read to its end.
  server.enqueue(...SCRIPT);
  await (await Agent.create({ backend, tools: noop, prompt: SYSTEM })).submit(PROMPT);
  const bodies = server.requests.slice(-2).map((r) => JSON.stringify(r.body));
  const url = `${baseUrl}/chat/completions`;
  const headers = { "content-type": "application/json", authorization: "Bearer sk-bench" };
  const bareFetch = () =>
    timed(async () => {
      for (const body of bodies) await (await fetch(url, { method: "POST", headers, body })).text();
    });
  const bareUndici = () =>
    timed(async () => {
      for (const body of bodies) await (await request(url, { method: "POST", headers, body })).body.text();
    });

  const runs = await interleaved(
    { undici: bareUndici, fetch: bareFetch, ours, pi, ai: aiSdk },
    ROUNDS,
    WARMUP,
  );
  const s = {
    undici: summarize(runs.undici),
    fetch: summarize(runs.fetch),
    ours: summarize(runs.ours),
    pi: summarize(runs.pi),
    ai: summarize(runs.ai),
  };
  // Per request: half the run's time over the bare client's (two requests a run).
  const over = (x: Summary, base: Summary) => {
    const d = (x.median - base.median) / 2;
    return `${d >= 0 ? "+" : ""}${d.toFixed(2)} ms`;
  };
  const perRequest = (x: Summary) => (x.median - s.undici.median) / 2;
  addSummaryRow({
    order: 1,
    measure:
      "agent loop, prompt → tool call → answer over loopback HTTP: added per request over bare undici.request (median of 200)",
    ours: `+${perRequest(s.ours).toFixed(2)} ms`,
    baseline: `pi-agent-core 0.73.1 +${perRequest(s.pi).toFixed(2)} ms; ai 6 +${perRequest(s.ai).toFixed(2)} ms`,
    goal: "≤ +0.5 ms, ahead of both",
    met: perRequest(s.ours) <= 0.5 && s.ours.median < s.pi.median && s.ours.median < s.ai.median,
  });
  const line = (name: string, x: Summary) =>
    `   ${name} ${minMedian(x)} ms: ${over(x, s.undici)} per request over undici.request, ${over(x, s.fetch)} over fetch`;
  return [
    `prompt → tool call → result → answer, two streamed requests over loopback HTTP (min / median of ${ROUNDS}, interleaved; per request from the medians):`,
    `   bare undici.request ${minMedian(s.undici)} ms; bare fetch ${minMedian(s.fetch)} ms`,
    line("@ollie/agent-core", s.ours),
    line("@mariozechner/pi-agent-core 0.73.1", s.pi),
    line("ai 6.0.325 + @ai-sdk/openai-compatible 2.0.92", s.ai),
  ].join("\n");
}
