import { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { createParser } from "eventsource-parser";
import { readLines } from "../src/http/ndjson-reader.js";
import { readSse, type SseItem } from "../src/http/sse-reader.js";
import { AnthropicDecoder } from "../src/providers/anthropic/decoder.js";
import { GeminiDecoder } from "../src/providers/gemini/decoder.js";
import { KiroDecoder } from "../src/providers/kiro/kiro-decoder.js";
import { OllamaDecoder } from "../src/providers/ollama/decoder.js";
import { OpenAiDecoder } from "../src/providers/openai/decoder.js";
import { readAwsEventStream } from "../src/stream/aws-event-stream.js";
import { EventStream, type WireDecoder } from "../src/stream/event-stream.js";
import { ReplyBuilder } from "../src/stream/reply-builder.js";
import { encodeEventStreamMessage } from "../src/testing/kiro/event-stream-encoder.js";
import { frameBytes, type MockReply, type Rendered } from "../src/testing/mock-reply.js";
import { renderAnthropic } from "../src/testing/wire/anthropic.js";
import { renderGemini } from "../src/testing/wire/gemini.js";
import { renderOllama } from "../src/testing/wire/ollama.js";
import { renderOpenAi } from "../src/testing/wire/openai.js";
import type { StreamEvent } from "../src/types.js";
import { httpStream } from "./http-stream.js";
import { interleave, minMedian, type Timed } from "./interleave.js";

/**
 * 1. Per provider: events per second decoding a recorded 100,000-token stream (bytes in 16 KiB network
 *    chunks, as a socket delivers them), against eventsource-parser alone over the same bytes.
 * 2. One tool call whose 32 to 256 KiB argument streams in 1-character deltas, over loopback HTTP, as a user
 *    pays for it, beside its floor, the HTTP body alone and the peers, in the same run (http-stream.ts).
 * 3. 200,000 events queued at once, drained by the consumer.
 * 4. Kiro's binary event-stream, framed and decoded.
 * 1, 3 and 4 time decoding bytes already in memory; 2 is what a user pays, over a socket.
 */

const TOKENS = 100_000;

function chunked(rendered: Rendered): Buffer[] {
  const bytes = Buffer.concat(rendered.frames.map(frameBytes));
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 16 * 1024) out.push(bytes.subarray(i, i + 16 * 1024));
  return out;
}

async function* source(chunks: Buffer[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

/** Decodes a recording; returns the number of wire events (SSE events or NDJSON lines) decoded. */
async function decode<I>(
  chunks: Buffer[],
  read: (b: AsyncIterable<Uint8Array>) => AsyncGenerator<I[]>,
  decoder: WireDecoder<I>,
) {
  let wire = 0;
  for await (const items of read(source(chunks))) {
    for (const item of items) decoder.accept(item);
    wire += items.length;
    decoder.builder.drain();
  }
  decoder.end();
  decoder.builder.drain();
  return wire;
}

function bareSse(chunks: Buffer[]): number {
  let events = 0;
  const parser = createParser({ onEvent: () => void events++ });
  // Node 20's fastest streaming UTF-8 decoder, the one readSse uses (TextDecoder's stream mode is slower).
  const decoder = new StringDecoder("utf8");
  for (const c of chunks) parser.feed(decoder.write(c));
  parser.feed("\n\n");
  return events;
}

function bareNdjson(chunks: Buffer[]): number {
  let events = 0;
  let carry = "";
  const decoder = new StringDecoder("utf8");
  for (const c of chunks) {
    const lines = (carry + decoder.write(c)).split("\n");
    carry = lines.pop()!;
    for (const l of lines) if (l) JSON.parse(l) && events++;
  }
  return events;
}

/** "min (median)" of a rate: `count` per second at the fastest and the median round. */
function rates(t: Timed): { min: number; median: number; text: string } {
  const { min, median } = minMedian(t.times);
  const r = { min: (t.count / min) * 1000, median: (t.count / median) * 1000 };
  return { ...r, text: `${(r.min / 1e6).toFixed(2)} M (${(r.median / 1e6).toFixed(2)} M)` };
}

const msText = (t: Timed) => {
  const { min, median } = minMedian(t.times);
  return `${min.toFixed(1)} (${median.toFixed(1)}) ms`;
};

const reply: MockReply = {
  text: "tok ".repeat(TOKENS),
  chunkSize: 4,
  usage: { input: 1200, cachedInput: 1000, output: TOKENS },
};
const providers: Array<[string, Rendered, () => WireDecoder<SseItem> | WireDecoder<string>, boolean]> = [
  ["openai", renderOpenAi(reply, "m"), () => new OpenAiDecoder({ provider: "openai" }), true],
  ["anthropic", renderAnthropic(reply, "m"), () => new AnthropicDecoder({ provider: "anthropic" }), true],
  ["gemini", renderGemini(reply, "m"), () => new GeminiDecoder({ provider: "gemini" }), true],
  ["ollama", renderOllama(reply, "m"), () => new OllamaDecoder({ provider: "ollama" }, () => 0), false],
];

console.log(
  `@ollie/backends benchmarks (node ${process.version}); each figure beside its baseline, the two run interleaved, 7 rounds: fastest (median)\n`,
);
console.log(`1. decoding a recorded ${TOKENS.toLocaleString("en")}-token stream`);
for (const [name, rendered, make, isSse] of providers) {
  const chunks = chunked(rendered);
  const [ours, bare] = (await interleave([
    () =>
      isSse
        ? decode(chunks, readSse, make() as WireDecoder<SseItem>)
        : decode(chunks, readLines, make() as WireDecoder<string>),
    () => (isSse ? bareSse(chunks) : bareNdjson(chunks)),
  ])) as [Timed, Timed];
  const [a, b] = [rates(ours), rates(bare)];
  const baseline = isSse ? "eventsource-parser alone" : "split lines + JSON.parse alone";
  console.log(
    `   ${name.padEnd(9)} ${a.text} events/s; ${baseline}: ${b.text} /s; ratio ${(a.min / b.min).toFixed(2)} (${(a.median / b.median).toFixed(2)})`,
  );
}

await httpStream();

{
  const COUNT = 200_000;
  /** A decoder that turns one item into a burst of events, to measure handing them out alone. */
  class Burst implements WireDecoder<string> {
    readonly builder = new ReplyBuilder();
    accept(): void {
      for (let i = 0; i < COUNT; i++) this.builder.toolCallStart(i, "id", "name");
      this.builder.done("stop");
    }
    end(): void {}
  }
  const drain = async () => {
    const stream = new EventStream({ provider: "bench" }, async () => ({
      body: Readable.from([Buffer.from("x\n")]),
      read: readLines,
      decoder: new Burst(),
    }));
    let drained = 0;
    for await (const _ of stream) drained++;
    return drained;
  };
  // The floor: for-await over an async generator that yields events already in an array.
  const ready: StreamEvent[] = Array.from({ length: COUNT }, (_, i) => ({
    type: "tool_call_start",
    index: i,
    id: "id",
    name: "name",
  }));
  async function* generate() {
    for (const e of ready) yield e;
  }
  const [r, floor] = (await interleave([
    drain,
    async () => {
      let drained = 0;
      for await (const _ of generate()) drained++;
      return drained;
    },
  ])) as [Timed, Timed];
  console.log(
    `3. ${r.count.toLocaleString("en")} queued events made and drained by a for-await consumer: ${msText(r)} (an async generator over a ready array: ${msText(floor)})`,
  );
}

/**
 * 4. Kiro's AWS event-stream: 100,000 text frames in 16 KiB chunks, framed (both CRCs checked) and decoded
 *    into events, against the floor of reading the same frames: JSON.parse of each payload, the frame
 *    boundaries known in advance.
 */
async function awsEventStream(): Promise<void> {
  const FRAMES = 100_000;
  const headers = {
    ":event-type": "assistantResponseEvent",
    ":content-type": "application/json",
    ":message-type": "event",
  };
  const frames = Array.from({ length: FRAMES }, (_, i) =>
    Buffer.from(encodeEventStreamMessage(headers, `{"content":"tok ${i} "}`)),
  );
  const bytes = Buffer.concat(frames);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 16 * 1024) chunks.push(bytes.subarray(i, i + 16 * 1024));
  const decodeFrames = async () => {
    const decoder = new KiroDecoder({ provider: "bench" }, { contextWindow: 200_000 });
    let events = 0;
    for await (const batch of readAwsEventStream(source(chunks))) {
      for (const m of batch) decoder.accept(m);
      events += decoder.builder.drain().length;
    }
    decoder.end();
    return events + decoder.builder.drain().length;
  };
  const payloads = frames.map((f) => f.subarray(f.readUInt32BE(4) + 12, f.length - 4));
  const [r, floor] = (await interleave([
    decodeFrames,
    () => {
      const text = new TextDecoder();
      let parsed = 0;
      for (const p of payloads) if (JSON.parse(text.decode(p)).content !== undefined) parsed++;
      return parsed;
    },
  ])) as [Timed, Timed];
  // Frames per second, whatever each run counted (events, payloads).
  const [a, b] = [rates({ ...r, count: FRAMES }), rates({ ...floor, count: FRAMES })];
  console.log(
    `4. an AWS event-stream of ${FRAMES.toLocaleString("en")} assistantResponseEvent frames (${(bytes.length / 1e6).toFixed(1)} MB, 16 KiB chunks), framed and decoded: ${a.text} frames/s; JSON.parse of the payloads alone: ${b.text} /s; ratio ${(a.min / b.min).toFixed(2)} (${(a.median / b.median).toFixed(2)})`,
  );
}
await awsEventStream();
