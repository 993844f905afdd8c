// What OpenTelemetry costs the agent loop, in three modes interleaved in one run: tracing off (no SDK: the
// API's no-ops, what every program pays that does not register one); an SDK registered that records every
// span (AlwaysOn) and sends them nowhere (no span processor, no metric reader): the instrumentation's own
// price; and spans batched (BatchSpanProcessor) and metrics exported as OTLP protobuf to a local HTTP
// receiver that answers 200, the export's work (serializing, sending) counted in the run that made them. A
// fourth, the async-hooks context manager registered alone, says how much of the second is the context
// manager's (every promise of the process pays for it), not the spans'.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { addSummaryRow, interleaved, minMedian, summarize } from "./stats.js";

const ROUNDS = 40;
const WARMUP = 5;

/** A receiver of OTLP/HTTP that takes everything and answers with an empty (valid) protobuf response. */
async function receiver() {
  let requests = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on("end", () => {
      requests++;
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received: () => ({ requests, bytes }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Puts the API back to its no-op state. */
function unregister(): void {
  trace.disable();
  metrics.disable();
  context.disable();
}

function register(tracerProvider: BasicTracerProvider, meterProvider: MeterProvider): void {
  unregister();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
}

/**
 * `loop` runs the loop benchmark's 100 rounds of a tool call and resolves the time per round in ms; each mode
 * runs it in turn, `ROUNDS` times each.
 */
export async function telemetryOverhead(loop: () => Promise<number>, roundsPerRun: number): Promise<string> {
  const otlp = await receiver();
  const recording = {
    traces: new BasicTracerProvider({ sampler: new AlwaysOnSampler() }),
    metrics: new MeterProvider(),
  };
  const traceExporter = new OTLPTraceExporter({ url: `${otlp.url}/v1/traces` });
  const exporting = {
    traces: new BasicTracerProvider({
      sampler: new AlwaysOnSampler(),
      spanProcessors: [new BatchSpanProcessor(traceExporter)],
    }),
    metrics: new MeterProvider({
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: `${otlp.url}/v1/metrics` }),
          exportIntervalMillis: 1000,
        }),
      ],
    }),
  };
  const runs = await interleaved(
    {
      off: async () => {
        unregister();
        return loop();
      },
      contextOnly: async () => {
        unregister();
        context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
        return loop();
      },
      recording: async () => {
        register(recording.traces, recording.metrics);
        return loop();
      },
      exporting: async () => {
        register(exporting.traces, exporting.metrics);
        const perRound = await loop();
        // The batch this run filled is sent before the next mode runs, on this run's clock.
        const start = performance.now();
        await Promise.all([exporting.traces.forceFlush(), exporting.metrics.forceFlush()]);
        return perRound + (performance.now() - start) / roundsPerRun;
      },
    },
    ROUNDS,
    WARMUP,
  );
  unregister();
  await Promise.all([
    recording.traces.shutdown(),
    recording.metrics.shutdown(),
    exporting.traces.shutdown(),
    exporting.metrics.shutdown(),
  ]);
  const sent = otlp.received();
  await otlp.close();
  if (sent.requests === 0) throw new Error("the exporting mode sent nothing to the receiver");

  const s = {
    off: summarize(runs.off),
    contextOnly: summarize(runs.contextOnly),
    recording: summarize(runs.recording),
    exporting: summarize(runs.exporting),
  };
  const micro = (x: { min: number; median: number }) =>
    minMedian({ min: x.min * 1000, median: x.median * 1000 }, 0);
  const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
  const ratio = (x: { median: number }) => `${(x.median / s.off.median).toFixed(2)}×`;
  const added = (x: { median: number }) => `+${us(x.median - s.off.median)}`;
  addSummaryRow({
    order: 8,
    measure: `agent loop with OpenTelemetry exporting OTLP protobuf (a round: a chat and an execute_tool span), per round (median of ${ROUNDS})`,
    ours: `${us(s.exporting.median)}; AlwaysOn, no processor ${us(s.recording.median)}`,
    baseline: `tracing off ${us(s.off.median)}`,
    ratio: `${ratio(s.exporting)} (no processor ${ratio(s.recording)})`,
  });
  return [
    `OpenTelemetry and the loop: a round of tool calls (${roundsPerRun} rounds a run, a chat and an execute_tool span each; min / median per round of ${ROUNDS} runs, interleaved):`,
    `   tracing off (no SDK: the API's no-ops) ${micro(s.off)} µs`,
    `   SDK registered, AlwaysOn, no span processor ${micro(s.recording)} µs: ${added(s.recording)}, ${ratio(s.recording)}`,
    `   BatchSpanProcessor → OTLP protobuf → local receiver, metrics too, flush counted ${micro(s.exporting)} µs: ${added(s.exporting)}, ${ratio(s.exporting)} (${sent.requests} requests, ${(sent.bytes / 1024).toFixed(0)} KiB received)`,
    `   the context manager alone (AsyncLocalStorage, no SDK), a part of both ${micro(s.contextOnly)} µs: ${added(s.contextOnly)}, ${ratio(s.contextOnly)}`,
  ].join("\n");
}
