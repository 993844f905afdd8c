import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@ollie/config-file";
import { afterEach, describe, expect, it } from "vitest";
import { fileSettingsOf, readOtelSection, toolsrvTelemetryEnv } from "./telemetry-config.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const configDir = (yaml?: string) => {
  dir = mkdtempSync(join(tmpdir(), "otel-config-"));
  if (yaml !== undefined) writeFileSync(join(dir, "olliesrv.yaml"), yaml);
  return dir;
};

describe("olliesrv.yaml's otel section", () => {
  it("is nothing when the file is absent", async () => {
    expect(await readOtelSection(configDir())).toBeUndefined();
    expect(fileSettingsOf(undefined)).toEqual({});
  });

  it("reads every setting into the SDK's terms", async () => {
    const section = await readOtelSection(
      configDir(
        [
          "otel:",
          "  endpoint: https://otel.example:4318",
          "  protocol: http/json",
          "  headers: { x-api-key: k3y }",
          "  metrics: false",
          "  sample_ratio: 0.5",
          "  capture_message_content: true",
          "  resource_attributes: { deployment.environment.name: prod }",
          "  metric_export_interval: 5000",
        ].join("\n"),
      ),
    );
    expect(fileSettingsOf(section)).toEqual({
      endpoint: "https://otel.example:4318",
      protocol: "http/json",
      headers: { "x-api-key": "k3y" },
      metrics: false,
      sampleRatio: 0.5,
      captureMessageContent: true,
      resourceAttributes: { "deployment.environment.name": "prod" },
      metricExportIntervalMs: 5000,
    });
  });

  it("says where a wrong setting is", async () => {
    const dir = configDir("otel:\n  endpoint: ftp://x\n  protocol: grpc\n");
    const error = await readOtelSection(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/olliesrv\.yaml:2:\d+: otel\.endpoint: an http or https URL/);
    expect(String(error)).toMatch(
      /otel\.protocol: http\/protobuf or http\/json \(OTLP over gRPC is not supported\)/,
    );
  });
});

describe("toolsrvTelemetryEnv", () => {
  it("names toolsrv, and only that, when nothing is configured", () => {
    expect(toolsrvTelemetryEnv({}, undefined)).toEqual({ OTEL_SERVICE_NAME: "toolsrv" });
    expect(toolsrvTelemetryEnv({ OTEL_SERVICE_NAME: "mine" }, undefined)).toEqual({});
  });

  it("gives toolsrv the file's settings as variables, under those of the environment", () => {
    const section = {
      endpoint: "http://c:4318",
      headers: { authorization: "Bearer a b" },
      traces: false,
      sample_ratio: 0.1,
      capture_message_content: true,
      resource_attributes: { team: "x" },
      metric_export_interval: 1000,
    };
    expect(toolsrvTelemetryEnv({}, section)).toEqual({
      OTEL_SERVICE_NAME: "toolsrv",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20a%20b",
      OTEL_TRACES_EXPORTER: "none",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.1",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
      OTEL_RESOURCE_ATTRIBUTES: "team=x",
      OTEL_METRIC_EXPORT_INTERVAL: "1000",
    });
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://mine",
      OTEL_TRACES_SAMPLER: "always_on",
      OTEL_RESOURCE_ATTRIBUTES: "team=y",
    };
    expect(toolsrvTelemetryEnv(env, section)).toMatchObject({ OTEL_RESOURCE_ATTRIBUTES: "team=x,team=y" });
    expect(toolsrvTelemetryEnv(env, section)).not.toHaveProperty("OTEL_EXPORTER_OTLP_ENDPOINT");
    expect(toolsrvTelemetryEnv(env, section)).not.toHaveProperty("OTEL_TRACES_SAMPLER_ARG");
  });
});
