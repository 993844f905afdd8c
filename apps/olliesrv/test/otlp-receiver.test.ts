import { inSpan, ollieInstruments, ollieTracer } from "@ollie/telemetry";
import { resolveTelemetrySettings, startTelemetry } from "@ollie/telemetry/sdk";
import { context, metrics, propagation, SpanKind, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { OtlpReceiver } from "./otlp-receiver.js";

let receiver: OtlpReceiver | undefined;
afterEach(() => {
  receiver?.close();
  for (const api of [trace, metrics, context, propagation]) api.disable();
});

// The receiver stands in for a collector in the end-to-end tests: it must read what the SDK's OTLP exporters
// send, in both encodings, the same way.
describe.each(["http/protobuf", "http/json"])("the OTLP receiver, %s", (protocol) => {
  it("decodes spans with their parents, attributes, events and links, and metrics with their buckets", async () => {
    receiver = await OtlpReceiver.start();
    const settings = resolveTelemetrySettings({}, { endpoint: receiver.url, protocol });
    if (!settings) throw new Error("settings expected");
    const telemetry = await startTelemetry({ service: "olliesrv", version: "9.9.9", settings });
    const tracer = ollieTracer("@ollie/test");
    let linked = "";
    await inSpan(tracer, "invoke_agent default", { attributes: { "ollie.turn.steps": 3 } }, async (outer) => {
      linked = outer.spanContext().spanId;
      await inSpan(
        tracer,
        "chat mock-model",
        {
          kind: SpanKind.CLIENT,
          attributes: { "gen_ai.response.finish_reasons": ["stop"], "gen_ai.request.stream": true },
          links: [{ context: outer.spanContext(), attributes: { "ollie.link": "callback" } }],
        },
        async (span) => span.addEvent("ollie.retry", { "ollie.retry.attempt": 1 }),
      );
    });
    ollieInstruments("@ollie/test").operationDuration.record(0.3, { "gen_ai.operation.name": "chat" });
    await telemetry.forceFlush();
    await telemetry.shutdown();

    expect(new Set(receiver.bodies.map((b) => b.contentType))).toEqual(
      new Set([protocol === "http/json" ? "application/json" : "application/x-protobuf"]),
    );
    const [chat, outer] = receiver.spans;
    expect(outer).toMatchObject({
      service: "olliesrv",
      scope: "@ollie/test",
      name: "invoke_agent default",
      kind: 1,
      parentSpanId: "",
      attributes: { "ollie.turn.steps": 3 },
    });
    expect(outer?.spanId).toBe(linked);
    expect(chat).toMatchObject({
      name: "chat mock-model",
      kind: 3,
      traceId: outer?.traceId,
      parentSpanId: linked,
      attributes: { "gen_ai.response.finish_reasons": ["stop"], "gen_ai.request.stream": true },
      events: [{ name: "ollie.retry", attributes: { "ollie.retry.attempt": 1 } }],
      links: [{ traceId: outer?.traceId, spanId: linked, attributes: { "ollie.link": "callback" } }],
    });
    expect(chat?.traceId).toMatch(/^[0-9a-f]{32}$/);
    const duration = receiver.metrics.find((m) => m.name === "gen_ai.client.operation.duration");
    expect(duration).toMatchObject({ service: "olliesrv", unit: "s" });
    expect(duration?.points[0]).toMatchObject({ count: 1, attributes: { "gen_ai.operation.name": "chat" } });
    expect(duration?.points[0]?.bounds?.slice(0, 3)).toEqual([0.01, 0.02, 0.04]);
  });
});
