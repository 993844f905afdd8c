// An OpenTelemetry SDK registered for one test: spans kept in memory as they end, metrics read on demand,
// and the async-hooks context manager (what carries the current span across awaits). `uninstall` puts the
// API back to its no-op state for the next test.

import { setCaptureMessageContent } from "@ollie/telemetry";
import { context, metrics, type SpanContext, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

export interface Otel {
  /** The spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The one span called `name`; fails when there is none or more than one. */
  span(name: string): ReadableSpan;
  /** Every metric recorded so far, by name. */
  metrics(): Promise<Map<string, MetricData>>;
  uninstall(): Promise<void>;
}

export function installOtel(): Otel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Read when the test asks (forceFlush), not on a timer.
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  const spans = () => exporter.getFinishedSpans();
  return {
    spans,
    span(name) {
      const found = spans().filter((s) => s.name === name);
      if (found.length !== 1) {
        const names = spans().map((s) => s.name);
        throw new Error(`${found.length} spans called ${name}; the spans: ${names.join(", ")}`);
      }
      return found[0]!;
    },
    async metrics() {
      await reader.forceFlush();
      const last = metricExporter.getMetrics().at(-1);
      const all = (last?.scopeMetrics ?? []).flatMap((s) => s.metrics);
      return new Map(all.map((m) => [m.descriptor.name, m]));
    },
    async uninstall() {
      trace.disable();
      metrics.disable();
      context.disable();
      setCaptureMessageContent(undefined);
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/** The span's parent's id, or undefined for a root span. */
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** Whether `child`'s parent is `parent`. */
export const isChildOf = (child: ReadableSpan, parent: ReadableSpan | SpanContext): boolean => {
  const context = "spanContext" in parent ? parent.spanContext() : parent;
  return (
    child.spanContext().traceId === context.traceId && child.parentSpanContext?.spanId === context.spanId
  );
};

/** A histogram's points. */
export const histogramPoints = (metric: MetricData | undefined) =>
  (metric?.dataPoints ?? []) as DataPoint<Histogram>[];
