import { spawn } from "node:child_process";
import type { Message } from "@ollie/backends";
import { type MockReply, ScriptedBackend } from "@ollie/backends/testing";
import { compactHistory } from "../src/compaction/compact.js";
import { DEFAULT_COMPACTION } from "../src/compaction/compaction-options.js";
import { COMPACTION_INSTRUCTIONS } from "../src/compaction/summary.js";
import { runHook } from "../src/hooks/run-hook.js";
import { Agent, ToolSet } from "../src/index.js";
import { DEFAULT_RETRY_POLICY } from "../src/model/retry-policy.js";
import { idleHeap } from "./idle-heap.js";
import { loopHttp } from "./loop-http.js";
import { telemetryOverhead } from "./telemetry-overhead.js";

/**
 * 1. Loop overhead per round of tool calls: a zero-latency scripted model and a no-op tool, 100 rounds,
 *    against driving the same backend and tool by hand.
 * 0. Heap per idle agent, against pi-agent-core's (bench/idle-heap.ts).
 * 2. A whole prompt → tool call → result → answer over loopback HTTP to the mock OpenAI-compatible server,
 *    against the same two requests made with bare undici.request and fetch, and against pi-agent-core and
 *    the AI SDK doing the same run on the same server (bench/loop-http.ts).
 * 3. Memory per idle agent holding a 200-message history, against the messages alone.
 * 4. Compacting a 500-message history, the (scripted, instant) model's time taken out.
 * 5. Running a hook: a shell command with a JSON payload, against spawning the same shell bare.
 * 6. The loop of 1. with OpenTelemetry off, with an SDK recording every span but sending none, and exporting
 *    OTLP protobuf to a local receiver (bench/telemetry-overhead.ts).
 */

const ROUNDS = 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const now = () => performance.now();

const noop = new ToolSet([
  {
    name: "noop",
    description: "Does nothing",
    parameters: { type: "object", properties: {} },
    run: () => "ok",
  },
]);
const roundReplies = (): MockReply[] => [
  ...Array.from({ length: ROUNDS }, (_, i) => ({ toolCalls: [{ name: "noop", arguments: { i } }] })),
  { text: "done" },
];

async function loopRun(): Promise<number> {
  const agent = await Agent.create({
    backend: new ScriptedBackend({ replies: roundReplies() }),
    tools: noop,
    maxSteps: ROUNDS + 1,
    safety: { repeatNudgeCalls: 1e9, repeatAbortCalls: 1e9, replanRounds: 1e9, stallRounds: 1e9 },
  });
  const start = now();
  const outcome = await agent.submit("go");
  if (outcome.steps !== ROUNDS) throw new Error(`expected ${ROUNDS} rounds, got ${outcome.steps}`);
  return (now() - start) / ROUNDS;
}

async function handRun(): Promise<number> {
  const backend = new ScriptedBackend({ replies: roundReplies() });
  const messages: Message[] = [{ role: "user", content: "go" }];
  const start = now();
  for (let i = 0; i <= ROUNDS; i++) {
    for await (const e of backend.chatStream(messages, [], {})) {
      if (e.type !== "done") continue;
      messages.push(e.message);
      for (const c of e.message.toolCalls ?? []) {
        const r = await noop.call(c.name, c.arguments, new AbortController().signal);
        messages.push({ role: "tool", toolCallId: c.id, name: c.name, content: r.output });
      }
    }
  }
  return (now() - start) / ROUNDS;
}

// A user runs the built package on plain node; tsx turns source-mapped stack traces on, which would charge
// every Error made on the way (undici makes one per response body closed early) at many times its price.
process.setSourceMapsEnabled(false);

console.log(`@ollie/agent-core benchmarks (node ${process.version})\n`);
console.log(`0. ${await idleHeap()}`);
{
  const ours: number[] = [];
  const hand: number[] = [];
  for (let i = 0; i < 15; i++) {
    ours.push(await loopRun());
    hand.push(await handRun());
  }
  const o = median(ours);
  const h = median(hand);
  console.log(
    `1. a round of tool calls (${ROUNDS} rounds, scripted model, no-op tool): ${(o * 1000).toFixed(0)} µs per round; by hand ${(h * 1000).toFixed(0)} µs; the loop adds ${((o - h) * 1000).toFixed(0)} µs (median of 15)`,
  );
}

console.log(`2. ${await loopHttp()}`);

{
  const COUNT = 200;
  const history = (seed: number): Message[] =>
    Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? { role: "user", content: `Question ${seed}.${i}: ${"what does this function do? ".repeat(4)}` }
        : {
            role: "assistant",
            content: `Answer ${seed}.${i}: ${"it parses the header and returns it. ".repeat(6)}`,
          },
    );
  const heap = () => {
    globalThis.gc?.();
    return process.memoryUsage().heapUsed;
  };
  const base = heap();
  const plain = Array.from({ length: COUNT }, (_, i) => history(i));
  const messagesOnly = (heap() - base) / COUNT;
  const before = heap();
  const agents = await Promise.all(
    plain.map((h, i) => Agent.create({ backend: new ScriptedBackend(), history: h, id: `agent-${i}` })),
  );
  const perAgent = (heap() - before) / COUNT;
  console.log(
    `3. an idle agent with a 200-message history: ${(perAgent / 1024).toFixed(1)} KiB beyond its messages (the messages themselves: ${(messagesOnly / 1024).toFixed(1)} KiB)${globalThis.gc ? "" : " — run with --expose-gc for exact figures"}`,
  );
  if (agents.length !== COUNT || plain.length !== COUNT) throw new Error("unreachable");
}

{
  const messages: Message[] = [];
  for (let i = 0; i < 125; i++) {
    messages.push({ role: "user", content: `step ${i}: ${"please look at the next file. ".repeat(6)}` });
    messages.push({
      role: "assistant",
      content: `Reading file ${i}.`,
      toolCalls: [{ id: `c${i}`, name: "read", arguments: { path: `src/file-${i}.ts` } }],
    });
    messages.push({
      role: "tool",
      toolCallId: `c${i}`,
      name: "read",
      content: `export const x${i} = 1;\n`.repeat(40),
    });
    messages.push({ role: "assistant", content: `File ${i} exports x${i}.` });
  }
  const summary = JSON.stringify({
    objective: "read the files",
    constraints: [],
    decisions: ["all files export one constant"],
  });
  const compactOnce = async () => {
    const backend = new ScriptedBackend({ replies: [{ text: summary }] });
    const start = now();
    await compactHistory({
      messages,
      taskState: { objective: "", constraints: [] },
      tools: new Map(),
      toolSchemas: [],
      preamble: "You read files.",
      backend,
      options: DEFAULT_COMPACTION,
      retry: DEFAULT_RETRY_POLICY,
      sessionId: "bench",
      trigger: "command",
      contextLength: 200_000,
      extraInstructions: "",
      signal: new AbortController().signal,
    });
    const total = now() - start;
    // The model's part: the same request to the same scripted model, alone.
    const request = backend.calls[0]!;
    const again = new ScriptedBackend({ replies: [{ text: summary }] });
    const modelStart = now();
    for await (const _ of again.chatStream(request.messages, [], {})) {
      // drain
    }
    return {
      total,
      model: now() - modelStart,
      system: request.messages[0]!.content === COMPACTION_INSTRUCTIONS,
    };
  };
  const runs = [];
  for (let i = 0; i < 25; i++) runs.push(await compactOnce());
  const ours = median(runs.slice(5).map((r) => r.total - r.model));
  console.log(
    `4. compacting a 500-message history, model time taken out: ${ours.toFixed(2)} ms (median of 20)`,
  );
}

{
  const payload = {
    event: "preTool",
    session_id: "1-abc",
    agent: "bench",
    tool: "shell",
    args: { cmd: "ls" },
  };
  const bare = () =>
    new Promise<number>((resolve) => {
      const start = now();
      const child = spawn("/bin/sh", ["-c", "cat >/dev/null"], { stdio: ["pipe", "ignore", "ignore"] });
      child.on("exit", () => resolve(now() - start));
      child.stdin.end(JSON.stringify(payload));
    });
  const hooked = async () => {
    const start = now();
    const run = await runHook("cat >/dev/null", payload, { cwd: process.cwd() });
    if (run.outcome !== "ok") throw new Error(run.problem);
    return now() - start;
  };
  const b: number[] = [];
  const h: number[] = [];
  for (let i = 0; i < 60; i++) {
    b.push(await bare());
    h.push(await hooked());
  }
  const [bm, hm] = [median(b.slice(10)), median(h.slice(10))];
  console.log(
    `5. a hook (sh -c, JSON on stdin, OLLIE_* variables, what it started swept when it ends): ${hm.toFixed(2)} ms; the same shell spawned bare ${bm.toFixed(2)} ms; overhead ${(hm - bm).toFixed(2)} ms (median of 50)`,
  );
}

console.log(`6. ${await telemetryOverhead(loopRun, ROUNDS)}`);
