// Whether, where and how a daemon exports: OpenTelemetry's standard environment variables over a daemon's own
// configuration. Pure parsing, importing nothing of the SDK, so a daemon with nothing configured loads none of
// it. The variables the SDK packages read themselves (endpoints, headers, timeouts, sampler, limits, batch
// sizes, service name and resource attributes) are left to them; those only the Node SDK package reads
// (OTEL_SDK_DISABLED, the exporters' and protocols' choice, the metric interval) are read here, as it is not used.

/** What a daemon's configuration file may say about telemetry (olliesrv's `otel` section). */
export interface TelemetryFileSettings {
  /** The OTLP/HTTP base address; `/v1/traces` and `/v1/metrics` are added to it. */
  endpoint?: string;
  protocol?: string;
  /** Headers sent with every export (an API key of the backend, typically): credentials, never logged. */
  headers?: Record<string, string>;
  traces?: boolean;
  metrics?: boolean;
  /** The share of new traces kept, 0 to 1 (parent-based: a continued trace keeps its parent's decision). */
  sampleRatio?: number;
  /** Put prompts, replies and tool input and output on spans. */
  captureMessageContent?: boolean;
  /** Attributes added to the resource of every span and metric. */
  resourceAttributes?: Record<string, string>;
  /** How often metrics are exported, in milliseconds. */
  metricExportIntervalMs?: number;
}

export type OtlpProtocol = "http/protobuf" | "http/json";
export type SignalExporter = "otlp" | "console";

/** A resolved configuration: what startTelemetry sets up. */
export interface TelemetrySettings {
  traces: SignalExporter[];
  metrics: SignalExporter[];
  tracesProtocol: OtlpProtocol;
  metricsProtocol: OtlpProtocol;
  /** Set only from the file: an endpoint in the environment is read by the exporters themselves. */
  tracesUrl?: string;
  metricsUrl?: string;
  headers?: Record<string, string>;
  sampleRatio?: number;
  captureMessageContent?: boolean;
  resourceAttributes: Record<string, string>;
  metricExportIntervalMs: number;
  metricExportTimeoutMs: number;
}

/** A setting that cannot be followed, named with its source; a daemon reports it and exits 2. */
export class TelemetrySettingsError extends Error {
  override readonly name = "TelemetrySettingsError";
}

type Env = Readonly<Record<string, string | undefined>>;

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

function exportersOf(env: Env, variable: string, fallback: SignalExporter[]): SignalExporter[] {
  const value = env[variable];
  if (!set(value)) return fallback;
  const names = value.split(",").map((name) => name.trim().toLowerCase());
  if (names.includes("none")) return [];
  for (const name of names) {
    if (name !== "otlp" && name !== "console") {
      throw new TelemetrySettingsError(
        `${variable}: "${name}" is not an exporter Ollie has (otlp, console, none)`,
      );
    }
  }
  return [...new Set(names as SignalExporter[])];
}

function protocolOf(env: Env, signal: "TRACES" | "METRICS", file: string | undefined): OtlpProtocol {
  const specific = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const [source, value] = set(env[specific])
    ? [specific, env[specific]]
    : set(env.OTEL_EXPORTER_OTLP_PROTOCOL)
      ? ["OTEL_EXPORTER_OTLP_PROTOCOL", env.OTEL_EXPORTER_OTLP_PROTOCOL]
      : ["the otel section's protocol", file];
  const protocol = value?.trim() || "http/protobuf";
  if (protocol === "http/protobuf" || protocol === "http/json") return protocol;
  if (protocol === "grpc") {
    throw new TelemetrySettingsError(
      `${source}: grpc is not supported; use http/protobuf or http/json (port 4318)`,
    );
  }
  throw new TelemetrySettingsError(
    `${source}: "${protocol}" is not an OTLP protocol (http/protobuf, http/json)`,
  );
}

function millisecondsOf(env: Env, variable: string, fallback: number): number {
  const value = env[variable];
  if (!set(value)) return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new TelemetrySettingsError(`${variable}: "${value}" is not a positive number of milliseconds`);
  }
  return ms;
}

const withPath = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`;

/**
 * The settings to start telemetry with, or undefined when it stays off: OTEL_SDK_DISABLED, or neither an
 * OTLP endpoint, nor an exporter named in the environment, nor an endpoint in the file. Localhost:4318 is
 * never assumed: a daemon sends nothing anywhere unless told where.
 */
export function resolveTelemetrySettings(
  env: Env,
  file: TelemetryFileSettings = {},
): TelemetrySettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  const envEndpoint = (signal: string) =>
    set(env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]) || set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const fileEndpoint = set(file.endpoint) ? file.endpoint : undefined;
  const otlpFor = (signal: string, enabled: boolean | undefined): SignalExporter[] =>
    enabled !== false && (envEndpoint(signal) || fileEndpoint) ? ["otlp"] : [];
  const traces = exportersOf(env, "OTEL_TRACES_EXPORTER", otlpFor("TRACES", file.traces));
  const metrics = exportersOf(env, "OTEL_METRICS_EXPORTER", otlpFor("METRICS", file.metrics));
  if (traces.length === 0 && metrics.length === 0) return undefined;
  if (file.sampleRatio !== undefined && !(file.sampleRatio >= 0 && file.sampleRatio <= 1)) {
    throw new TelemetrySettingsError(
      `the otel section's sampleRatio: ${file.sampleRatio} is not between 0 and 1`,
    );
  }
  const settings: TelemetrySettings = {
    traces,
    metrics,
    tracesProtocol: protocolOf(env, "TRACES", file.protocol),
    metricsProtocol: protocolOf(env, "METRICS", file.protocol),
    resourceAttributes: { ...file.resourceAttributes },
    metricExportIntervalMs: millisecondsOf(
      env,
      "OTEL_METRIC_EXPORT_INTERVAL",
      file.metricExportIntervalMs ?? 60_000,
    ),
    metricExportTimeoutMs: millisecondsOf(env, "OTEL_METRIC_EXPORT_TIMEOUT", 30_000),
  };
  if (fileEndpoint && !envEndpoint("TRACES")) settings.tracesUrl = withPath(fileEndpoint, "/v1/traces");
  if (fileEndpoint && !envEndpoint("METRICS")) settings.metricsUrl = withPath(fileEndpoint, "/v1/metrics");
  if (file.headers && Object.keys(file.headers).length > 0) settings.headers = { ...file.headers };
  if (file.sampleRatio !== undefined && !set(env.OTEL_TRACES_SAMPLER))
    settings.sampleRatio = file.sampleRatio;
  if (file.captureMessageContent !== undefined) settings.captureMessageContent = file.captureMessageContent;
  return settings;
}
