// Starting the OpenTelemetry SDK in a daemon: tracer and meter providers with OTLP/HTTP (or console)
// exporters, the async-local-storage context manager and W3C propagation, all registered globally so the
// libraries' API calls stop being no-ops. Every SDK package is imported here, on demand: a daemon that calls
// resolveTelemetrySettings and gets undefined loads none of them.
import { randomUUID } from "node:crypto";
import { context, DiagLogLevel, diag, metrics, propagation, trace } from "@opentelemetry/api";
import type { PushMetricExporter } from "@opentelemetry/sdk-metrics";
import type { Sampler, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { setCaptureMessageContent } from "../content.js";
import { RedactingSpanExporter } from "./redacting-exporter.js";
import type { TelemetrySettings } from "./settings.js";

export interface StartTelemetryOptions {
  /** `service.name`, unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES name another. */
  service: string;
  /** `service.version`. */
  version: string;
  settings: TelemetrySettings;
  /** Applied to every string of every span before export: the daemon's log redactor. */
  redact?: (text: string) => string;
  /** Where the SDK's own complaints go (an endpoint that refuses, a bad variable): the daemon's log. */
  warn?: (message: string) => void;
}

/** Running telemetry: flushed for a test, shut down when the daemon stops. */
export interface Telemetry {
  /** Exports whatever is waiting, and waits for it. */
  forceFlush(): Promise<void>;
  /** Exports what is waiting and stops; gives up after `limitMs` (1 s by default) so that a daemon's stop never waits on a collector. */
  shutdown(limitMs?: number): Promise<void>;
}

const identity = (text: string) => text;

/** What an OTLP exporter of a signal is given: the file's address for it, and the file's headers. */
const otlpOptions = (url: string | undefined, settings: TelemetrySettings) => ({
  ...(url && { url }),
  ...(settings.headers && { headers: settings.headers }),
});

async function spanExporter(settings: TelemetrySettings, kind: "otlp" | "console"): Promise<SpanExporter> {
  if (kind === "console") return new (await import("@opentelemetry/sdk-trace-base")).ConsoleSpanExporter();
  const options = otlpOptions(settings.tracesUrl, settings);
  return settings.tracesProtocol === "http/json"
    ? new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter(options)
    : new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter(options);
}

async function metricExporter(
  settings: TelemetrySettings,
  kind: "otlp" | "console",
): Promise<PushMetricExporter> {
  if (kind === "console") return new (await import("@opentelemetry/sdk-metrics")).ConsoleMetricExporter();
  const options = otlpOptions(settings.metricsUrl, settings);
  return settings.metricsProtocol === "http/json"
    ? new (await import("@opentelemetry/exporter-metrics-otlp-http")).OTLPMetricExporter(options)
    : new (await import("@opentelemetry/exporter-metrics-otlp-proto")).OTLPMetricExporter(options);
}

export async function startTelemetry(options: StartTelemetryOptions): Promise<Telemetry> {
  const { settings } = options;
  const redact = options.redact ?? identity;
  const [traceSdk, metricsSdk, resources, core, asyncHooks] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/sdk-metrics"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/core"),
    import("@opentelemetry/context-async-hooks"),
  ]);
  if (options.warn) {
    const warn = options.warn;
    const say = (message: string, ...args: unknown[]) =>
      warn(redact([message, ...args.map(String)].join(" ")));
    diag.setLogger(
      { error: say, warn: say, info: () => {}, debug: () => {}, verbose: () => {} },
      DiagLogLevel.WARN,
    );
  }
  const resource = resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({
        "service.name": options.service,
        "service.namespace": "ollie",
        "service.version": options.version,
        "service.instance.id": randomUUID(),
        ...settings.resourceAttributes,
      }),
    )
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES over ours; no host or process detectors, whose
    // attributes (a process's arguments, its owner) say more than a trace needs.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));

  const spanProcessors: SpanProcessor[] = [];
  for (const kind of settings.traces) {
    const exporter = new RedactingSpanExporter(await spanExporter(settings, kind), redact);
    spanProcessors.push(new traceSdk.BatchSpanProcessor(exporter));
  }
  const sampler: Sampler | undefined =
    settings.sampleRatio === undefined
      ? undefined
      : new traceSdk.ParentBasedSampler({
          root: new traceSdk.TraceIdRatioBasedSampler(settings.sampleRatio),
        });
  const tracerProvider = new traceSdk.BasicTracerProvider({
    resource,
    spanProcessors,
    ...(sampler && { sampler }),
  });

  const readers = await Promise.all(
    settings.metrics.map(async (kind) => {
      const interval = settings.metricExportIntervalMs;
      return new metricsSdk.PeriodicExportingMetricReader({
        exporter: await metricExporter(settings, kind),
        exportIntervalMillis: interval,
        exportTimeoutMillis: Math.min(settings.metricExportTimeoutMs, interval),
      });
    }),
  );
  const meterProvider = new metricsSdk.MeterProvider({ resource, readers });

  context.setGlobalContextManager(new asyncHooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  if (settings.traces.length > 0) trace.setGlobalTracerProvider(tracerProvider);
  if (settings.metrics.length > 0) metrics.setGlobalMeterProvider(meterProvider);
  setCaptureMessageContent(settings.captureMessageContent);

  const flushBoth = () =>
    Promise.all([tracerProvider.forceFlush(), meterProvider.forceFlush()]).then(() => undefined);
  return {
    forceFlush: flushBoth,
    async shutdown(limitMs = 1000) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, limitMs);
        timer.unref();
      });
      const stopped = Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]).then(
        () => undefined,
        (error: unknown) =>
          options.warn?.(`telemetry: stopping the exporters failed: ${redact(String(error))}`),
      );
      await Promise.race([stopped, limit]);
      clearTimeout(timer);
    },
  };
}
