// The `otel` section of olliesrv.yaml: telemetry settings for people who would rather not set OTEL_* in the
// environment olliesrv starts in (a systemd unit, an editor that starts it). The environment wins where both
// say something. The toolsrv olliesrv starts is given the same settings as OTEL_* variables.
import { join } from "node:path";
import { readConfigFile } from "@ollie/config-file";
import type { TelemetryFileSettings } from "@ollie/telemetry/sdk";
import { z } from "zod";

const otelSchema = z.strictObject({
  /** The collector's OTLP/HTTP base address; `/v1/traces` and `/v1/metrics` are added. */
  endpoint: z.url({ protocol: /^https?$/, error: "an http or https URL" }),
  protocol: z
    .enum(["http/protobuf", "http/json"], {
      error: "http/protobuf or http/json (OTLP over gRPC is not supported)",
    })
    .optional(),
  /** Sent with every export: credentials, kept out of the log. */
  headers: z.record(z.string().min(1), z.string()).optional(),
  traces: z.boolean().optional(),
  metrics: z.boolean().optional(),
  sample_ratio: z.number().min(0).max(1).optional(),
  capture_message_content: z.boolean().optional(),
  resource_attributes: z.record(z.string().min(1), z.string()).optional(),
  /** Milliseconds between metric exports. */
  metric_export_interval: z.number().int().positive().optional(),
});

const olliesrvConfigSchema = z.strictObject({ otel: otelSchema.optional() });

export type OtelSection = z.output<typeof otelSchema>;

/** `olliesrv.yaml` of the configuration directory: undefined when it does not exist; a ConfigError if it is wrong. */
export async function readOtelSection(configDir: string): Promise<OtelSection | undefined> {
  return (await readConfigFile(olliesrvConfigSchema, join(configDir, "olliesrv.yaml")))?.otel;
}

export function fileSettingsOf(section: OtelSection | undefined): TelemetryFileSettings {
  if (!section) return {};
  return {
    endpoint: section.endpoint,
    ...(section.protocol && { protocol: section.protocol }),
    ...(section.headers && { headers: section.headers }),
    ...(section.traces !== undefined && { traces: section.traces }),
    ...(section.metrics !== undefined && { metrics: section.metrics }),
    ...(section.sample_ratio !== undefined && { sampleRatio: section.sample_ratio }),
    ...(section.capture_message_content !== undefined && {
      captureMessageContent: section.capture_message_content,
    }),
    ...(section.resource_attributes && { resourceAttributes: section.resource_attributes }),
    ...(section.metric_export_interval !== undefined && {
      metricExportIntervalMs: section.metric_export_interval,
    }),
  };
}

const encodePairs = (pairs: Record<string, string>) =>
  Object.entries(pairs)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join(",");

/**
 * The OTEL_* variables that give the toolsrv olliesrv starts the file's settings, for those its environment
 * (olliesrv's own, which it inherits) does not already set; and its service name.
 */
export function toolsrvTelemetryEnv(
  env: NodeJS.ProcessEnv,
  section: OtelSection | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (name: string, value: string | undefined) => {
    if (value !== undefined && !env[name]) out[name] = value;
  };
  put("OTEL_SERVICE_NAME", "toolsrv");
  if (!section) return out;
  put("OTEL_EXPORTER_OTLP_ENDPOINT", section.endpoint);
  put("OTEL_EXPORTER_OTLP_PROTOCOL", section.protocol);
  if (section.headers) put("OTEL_EXPORTER_OTLP_HEADERS", encodePairs(section.headers));
  if (section.traces === false) put("OTEL_TRACES_EXPORTER", "none");
  if (section.metrics === false) put("OTEL_METRICS_EXPORTER", "none");
  if (section.sample_ratio !== undefined) {
    put("OTEL_TRACES_SAMPLER", "parentbased_traceidratio");
    if (out.OTEL_TRACES_SAMPLER) out.OTEL_TRACES_SAMPLER_ARG = String(section.sample_ratio);
  }
  if (section.capture_message_content !== undefined) {
    put("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", String(section.capture_message_content));
  }
  if (section.resource_attributes) {
    const own = env.OTEL_RESOURCE_ATTRIBUTES;
    const file = encodePairs(section.resource_attributes);
    // The environment's attributes last, so they win over the file's in the SDK's parsing.
    out.OTEL_RESOURCE_ATTRIBUTES = own ? `${file},${own}` : file;
  }
  if (section.metric_export_interval !== undefined) {
    put("OTEL_METRIC_EXPORT_INTERVAL", String(section.metric_export_interval));
  }
  return out;
}
