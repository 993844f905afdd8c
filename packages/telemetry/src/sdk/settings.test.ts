import { describe, expect, it } from "vitest";
import { resolveTelemetrySettings, TelemetrySettingsError } from "./settings.js";

describe("resolveTelemetrySettings", () => {
  it("stays off with nothing configured: no endpoint is assumed", () => {
    expect(resolveTelemetrySettings({})).toBeUndefined();
    expect(
      resolveTelemetrySettings({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" }),
    ).toBeUndefined();
  });

  it("turns on both signals for an endpoint in the environment, leaving its address to the exporters", () => {
    const settings = resolveTelemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" });
    expect(settings).toMatchObject({
      traces: ["otlp"],
      metrics: ["otlp"],
      tracesProtocol: "http/protobuf",
      metricsProtocol: "http/protobuf",
      metricExportIntervalMs: 60_000,
    });
    expect(settings?.tracesUrl).toBeUndefined();
  });

  it("turns on only the signal whose endpoint is given", () => {
    const settings = resolveTelemetrySettings({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces",
    });
    expect(settings).toMatchObject({ traces: ["otlp"], metrics: [] });
  });

  it("obeys OTEL_SDK_DISABLED and the exporters' none", () => {
    expect(
      resolveTelemetrySettings({ OTEL_SDK_DISABLED: "TRUE", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }),
    ).toBeUndefined();
    expect(
      resolveTelemetrySettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c",
        OTEL_TRACES_EXPORTER: "none",
        OTEL_METRICS_EXPORTER: "none",
      }),
    ).toBeUndefined();
  });

  it("takes a console exporter without an endpoint", () => {
    expect(resolveTelemetrySettings({ OTEL_TRACES_EXPORTER: "console" })).toMatchObject({
      traces: ["console"],
      metrics: [],
    });
  });

  it("puts the file's endpoint, headers, ratio and capture under the environment's", () => {
    const file = {
      endpoint: "http://collector:4318/",
      headers: { authorization: "Bearer t" },
      protocol: "http/json",
      sampleRatio: 0.25,
      captureMessageContent: true,
    };
    expect(resolveTelemetrySettings({}, file)).toMatchObject({
      tracesUrl: "http://collector:4318/v1/traces",
      metricsUrl: "http://collector:4318/v1/metrics",
      tracesProtocol: "http/json",
      headers: { authorization: "Bearer t" },
      sampleRatio: 0.25,
      captureMessageContent: true,
    });
    const overridden = resolveTelemetrySettings(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://other:4318",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_TRACES_SAMPLER: "always_on",
      },
      file,
    );
    expect(overridden).toMatchObject({ tracesProtocol: "http/protobuf" });
    expect(overridden?.tracesUrl).toBeUndefined();
    expect(overridden?.sampleRatio).toBeUndefined();
    expect(resolveTelemetrySettings({}, { ...file, traces: false })).toMatchObject({
      traces: [],
      metrics: ["otlp"],
    });
  });

  it.each([
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      /grpc is not supported/,
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "thrift" },
      /TRACES_PROTOCOL/,
    ],
    [{ OTEL_TRACES_EXPORTER: "jaeger" }, /"jaeger" is not an exporter/],
    [{ OTEL_TRACES_EXPORTER: "console", OTEL_METRIC_EXPORT_INTERVAL: "soon" }, /OTEL_METRIC_EXPORT_INTERVAL/],
  ])("names the setting it cannot follow: %o", (env, message) => {
    expect(() => resolveTelemetrySettings(env)).toThrow(TelemetrySettingsError);
    expect(() => resolveTelemetrySettings(env)).toThrow(message);
  });

  it("refuses a sample ratio outside 0..1", () => {
    expect(() => resolveTelemetrySettings({}, { endpoint: "http://c", sampleRatio: 2 })).toThrow(
      /sampleRatio/,
    );
  });
});
