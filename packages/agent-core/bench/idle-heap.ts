import { Agent as PiAgent } from "@mariozechner/pi-agent-core";
import { OpenAiBackend } from "@ollie/backends";
import { Agent } from "../src/index.js";
import { addSummaryRow, interleaved, minMedian, summarize } from "./stats.js";

/**
 * Heap per idle agent: N agents made and kept, the heap after a full collection against before, over N —
 * ours (`Agent.create` with a system prompt, sharing one backend) against pi-agent-core's `new Agent` (a
 * system prompt, sharing one model), in the same run, interleaved.
 */
const N = 10_000;
const ROUNDS = 5;

export const PI_MODEL = (baseUrl: string) => ({
  id: "gpt-5-mini",
  name: "mock",
  api: "openai-completions" as const,
  provider: "mock",
  baseUrl,
  reasoning: false,
  input: ["text" as const],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 128_000,
  maxTokens: 4096,
});

function heap(): number {
  // Twice: what a first collection frees can make more garbage collectable.
  globalThis.gc!();
  globalThis.gc!();
  return process.memoryUsage().heapUsed;
}

/** Bytes of heap each of N kept objects costs. */
async function perObject(make: () => unknown): Promise<number> {
  const kept: unknown[] = new Array(N);
  const before = heap();
  for (let i = 0; i < N; i++) kept[i] = await make();
  const after = heap();
  if (kept.length !== N) throw new Error("unreachable");
  return (after - before) / N;
}

export async function idleHeap(): Promise<string> {
  if (!globalThis.gc) return "heap per idle agent: run with --expose-gc (pnpm bench does)";
  const baseUrl = "http://127.0.0.1:9/v1";
  const backend = new OpenAiBackend({ baseUrl, model: "gpt-5-mini", apiKey: "sk-bench" });
  const model = PI_MODEL(baseUrl);
  const runs = await interleaved(
    {
      ours: () => perObject(() => Agent.create({ backend, prompt: "You are brief." })),
      pi: () =>
        perObject(
          () =>
            new PiAgent({
              initialState: { systemPrompt: "You are brief.", model, tools: [] },
              getApiKey: async () => "sk-bench",
            }),
        ),
    },
    ROUNDS,
    1,
  );
  const [o, p] = [summarize(runs.ours), summarize(runs.pi)];
  addSummaryRow({
    order: 4,
    measure: `heap per idle agent (${N.toLocaleString("en")} kept, min / median of ${ROUNDS} rounds) vs @mariozechner/pi-agent-core 0.73.1`,
    ours: `${minMedian(o, 0)} B`,
    baseline: `${minMedian(p, 0)} B`,
    ratio: `${(o.median / p.median).toFixed(2)}×`,
    goal: "≤ pi-agent-core's",
    met: o.median <= p.median,
  });
  return `heap per idle agent (${N.toLocaleString("en")} kept, full collection before and after; min / median of ${ROUNDS} rounds, interleaved):\n   @ollie/agent-core ${minMedian(o, 0)} B\n   @mariozechner/pi-agent-core 0.73.1 ${minMedian(p, 0)} B\n   ours / pi: ${(o.median / p.median).toFixed(2)} (median)`;
}
