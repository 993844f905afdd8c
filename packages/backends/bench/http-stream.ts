import { appendFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StringDecoder } from "node:string_decoder";
import { pathToFileURL } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { type Model, stream as piStream, Type } from "@mariozechner/pi-ai";
import { jsonSchema, streamText, tool } from "ai";
import { createParser } from "eventsource-parser";
import { request } from "undici";
import { OpenAiBackend } from "../src/providers/openai/openai-backend.js";
import { frameBytes } from "../src/testing/mock-reply.js";
import { renderOpenAi } from "../src/testing/wire/openai.js";
import { minMedian } from "./interleave.js";

/**
 * One tool call whose JSON arguments (32 to 256 KiB: `{"content":"xxx…"}`) stream in 1-character deltas,
 * served over a loopback HTTP server as OpenAI chat completions sends it (the package's own renderer makes
 * the exact bytes; written in 16 KiB socket writes). What a user pays is timed: from sending the request to
 * holding the parsed arguments, over the real socket and the real HTTP response. Beside it, in the same
 * run, interleaved round by round:
 *   - the floor: undici.request + eventsource-parser + JSON.parse of every event's data, argument fragments
 *     pushed to an array and joined and parsed once at the end (the bytes decoded by StringDecoder, the
 *     fastest UTF-8 decoder Node 20 has for a stream);
 *   - reading the HTTP body alone (undici.request, the chunks counted);
 *   - the peers: pi-ai's OpenAI completions stream and the AI SDK's openai-compatible provider.
 * Every result is checked: a client that did not get the whole argument back fails the run. The peers cost
 * far more per event, so they run fewer rounds and only up to a size: pi-ai parses the partial arguments
 * again at every delta (quadratic: 15 to 50 s for 32 KiB here), so it runs at 32 KiB only; the AI SDK up
 * to 128 KiB.
 * BENCH_ROUNDS, BENCH_SIZES (KiB, comma-separated) and BENCH_CLIENTS (names' beginnings) narrow a run.
 */

const SIZES_KIB = (process.env.BENCH_SIZES ?? "32,64,128,256").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PEER_ROUNDS = Math.min(ROUNDS, 3);
const CLIENTS = process.env.BENCH_CLIENTS?.split(",");
const WRITE = 16 * 1024;

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

interface Case {
  kib: number;
  value: string;
  body: Buffer;
  events: number;
}

function makeCase(kib: number): Case {
  // `{"content":"` and `"}` are 14 characters: the arguments are exactly `kib` KiB.
  const value = "x".repeat(kib * 1024 - 14);
  const rendered = renderOpenAi(
    { toolCalls: [{ id: "call_1", name: "write", arguments: { content: value } }], chunkSize: 1 },
    "m",
  );
  return { kib, value, body: Buffer.concat(rendered.frames.map(frameBytes)), events: rendered.frames.length };
}

/** Serves `current.body` to every POST, in WRITE-byte writes. */
async function serve(current: { body: Buffer }): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const body = current.body;
      for (let i = 0; i < body.length; i += WRITE) res.write(body.subarray(i, i + WRITE));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

const TOOL = {
  name: "write",
  description: "Writes a file",
  parameters: { type: "object", properties: { content: { type: "string" } }, required: ["content"] },
};
const REQUEST = {
  model: "m",
  stream: true,
  messages: [{ role: "user", content: "write it" }],
  tools: [{ type: "function", function: TOOL }],
};

function check(c: Case, content: unknown): void {
  if (content !== c.value) throw new Error(`${c.kib} KiB: the arguments did not come back whole`);
}

type Client = (c: Case, url: string) => Promise<void>;

/** (a) Ours, as a user calls it. */
const ollie: Client = async (c, url) => {
  const backend = new OpenAiBackend({ baseUrl: url, model: "m", apiKey: "k" });
  let args: Record<string, unknown> | undefined;
  for await (const e of backend.chatStream([{ role: "user", content: "write it" }], [TOOL])) {
    if (e.type === "done") args = e.message.toolCalls?.[0]?.arguments;
  }
  check(c, args?.content);
};

/** (b) The floor: the same request, SSE parsed by eventsource-parser, each event's data by JSON.parse. */
const floor: Client = async (c, url) => {
  const res = await request(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify(REQUEST),
  });
  const parts: string[] = [];
  const parser = createParser({
    onEvent: (e) => {
      if (e.data === "[DONE]") return;
      const chunk = JSON.parse(e.data) as {
        choices: Array<{ delta?: { tool_calls?: Array<{ function?: { arguments?: string } }> } }>;
      };
      const fragment = chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments;
      if (fragment) parts.push(fragment);
    },
  });
  const decoder = new StringDecoder("utf8");
  for await (const chunk of res.body) parser.feed(decoder.write(chunk as Buffer));
  check(c, (JSON.parse(parts.join("")) as { content: string }).content);
};

/** (c) Reading the HTTP body alone. */
const bodyOnly: Client = async (c, url) => {
  const res = await request(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify(REQUEST),
  });
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Buffer).length;
  if (bytes !== c.body.length) throw new Error(`${c.kib} KiB: the body came back short`);
};

/** pi-ai 0.73.1: its OpenAI completions provider (the openai SDK over fetch). */
const piAi: Client = async (c, url) => {
  const model: Model<"openai-completions"> = {
    id: "m",
    name: "m",
    api: "openai-completions",
    provider: "bench",
    baseUrl: url,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 4096,
  };
  const events = piStream(
    model,
    {
      messages: [{ role: "user", content: "write it", timestamp: 0 }],
      tools: [
        {
          name: "write",
          description: "Writes a file",
          parameters: Type.Object({ content: Type.String() }),
        },
      ],
    },
    { apiKey: "k" },
  );
  for await (const _ of events) {
  }
  const message = await events.result();
  const call = message.content.find((b) => b.type === "toolCall");
  check(c, call?.type === "toolCall" ? call.arguments.content : undefined);
};

/** The AI SDK 6 with @ai-sdk/openai-compatible: streamText, its full stream consumed. */
const aiSdk: Client = async (c, url) => {
  const provider = createOpenAICompatible({ name: "bench", baseURL: url, apiKey: "k" });
  const result = streamText({
    model: provider.chatModel("m"),
    prompt: "write it",
    tools: {
      write: tool({
        description: "Writes a file",
        inputSchema: jsonSchema<{ content: string }>(TOOL.parameters as never),
      }),
    },
  });
  let input: unknown;
  for await (const part of result.fullStream) {
    if (part.type === "tool-call") input = part.input;
    if (part.type === "error") throw part.error;
  }
  check(c, (input as { content?: string } | undefined)?.content);
};

interface Row {
  name: string;
  client: Client;
  /** A peer: fewer rounds, and no size beyond `maxKib`. */
  peer: boolean;
  maxKib: number;
  times: Map<number, number[]>;
}

const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

const ALL: Array<[string, Client, number | undefined]> = [
  ["a. OpenAiBackend.chatStream", ollie, undefined],
  ["b. floor: undici + eventsource-parser + JSON.parse", floor, undefined],
  ["c. the HTTP body alone", bodyOnly, undefined],
  ["pi-ai 0.73.1", piAi, 32],
  ["ai 6.0 + @ai-sdk/openai-compatible 2.0", aiSdk, 128],
];

/** Runs every client at every size, interleaved, and prints min / median per cell and the ratio a/b. */
export async function httpStream(): Promise<void> {
  const cases = SIZES_KIB.map(makeCase);
  const current = { body: cases[0]!.body };
  const { server, url } = await serve(current);
  const rows: Row[] = ALL.filter(([name]) => !CLIENTS || CLIENTS.some((c) => name.startsWith(c))).map(
    ([name, client, maxKib]) => ({
      name,
      client,
      peer: maxKib !== undefined,
      maxKib: maxKib ?? Number.POSITIVE_INFINITY,
      times: new Map(),
    }),
  );
  console.log(
    `2. one tool call whose arguments stream in 1-character deltas, over loopback HTTP (${ROUNDS} rounds interleaved, peers ${PEER_ROUNDS}; min / median ms)`,
  );
  try {
    for (const c of cases) {
      current.body = c.body;
      const active = rows.filter((row) => c.kib <= row.maxKib);
      // One unmeasured run each warms the code paths and the connection pools.
      for (const row of active) await row.client(c, url);
      for (let round = 0; round < ROUNDS; round++) {
        const turn = active.filter((row) => !row.peer || round < PEER_ROUNDS);
        // The order turns each round, so that no client always runs after the same one.
        for (let k = 0; k < turn.length; k++) {
          const row = turn[(k + round) % turn.length]!;
          const start = process.hrtime.bigint();
          await row.client(c, url);
          const took = ms(start);
          row.times.set(c.kib, [...(row.times.get(c.kib) ?? []), took]);
        }
      }
    }
  } finally {
    server.close();
  }
  const header = ["", ...cases.map((c) => `${c.kib} KiB (${c.events.toLocaleString("en")} events)`)];
  const lines = rows.map((row) => [
    row.name,
    ...cases.map((c) => {
      const t = row.times.get(c.kib);
      if (!t) return "not run";
      const { min, median } = minMedian(t);
      return `${fmt(min)} / ${fmt(median)}`;
    }),
  ]);
  const [a, b] = [rows.find((r) => r.client === ollie), rows.find((r) => r.client === floor)];
  if (a && b) {
    lines.push([
      "ratio a/b (min / median)",
      ...cases.map((c) => {
        const [x, y] = [minMedian(a.times.get(c.kib)!), minMedian(b.times.get(c.kib)!)];
        return `${(x.min / y.min).toFixed(2)} / ${(x.median / y.median).toFixed(2)}`;
      }),
    ]);
  }
  const widths = header.map((_, i) => Math.max(...[header, ...lines].map((l) => l[i]!.length)));
  for (const l of [header, ...lines]) {
    console.log(
      `   ${l.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")}`,
    );
  }
  console.log(
    "   (pi-ai runs at 32 KiB only and the AI SDK up to 128 KiB: their cost per event grows with the size)",
  );
  summarize(rows, a, b);
}

/** The 128 KiB row of `npm run bench`'s summary, beside the floor and the peers, when one is asked for. */
function summarize(rows: Row[], a: Row | undefined, b: Row | undefined): void {
  const file = process.env.OLLIE_BENCH_SUMMARY;
  const [ours, base] = [a?.times.get(128), b?.times.get(128)];
  if (!file || !ours || !base) return;
  const cell = (t: number[]) => `${fmt(minMedian(t).min)} / ${fmt(minMedian(t).median)} ms`;
  const peers = rows
    .filter((r) => r.peer)
    .map((r) => {
      const [kib, t] = [...r.times].at(-1) ?? [];
      return t ? `${r.name}: ${cell(t)} at ${kib} KiB` : "";
    })
    .filter(Boolean);
  const [x, y] = [minMedian(ours), minMedian(base)];
  appendFileSync(
    file,
    `${JSON.stringify({
      order: 3,
      measure: `one tool call whose 128 KiB argument streams in 1-character deltas, OpenAiBackend over loopback HTTP, vs undici + eventsource-parser + JSON.parse per event${peers.length ? ` (peers: ${peers.join("; ")})` : ""}`,
      ours: cell(ours),
      baseline: cell(base),
      ratio: `${(x.min / y.min).toFixed(2)}× / ${(x.median / y.median).toFixed(2)}×`,
      goal: "≤ 1.5×",
      met: x.median / y.median <= 1.5,
    })}\n`,
  );
}

// Run on its own: node --import tsx bench/http-stream.ts
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  await httpStream();
