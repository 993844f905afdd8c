import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { captureMessageContent, setCaptureMessageContent } from "../content.js";
import { ollieInstruments } from "../instruments.js";
import { inSpan, ollieTracer } from "../spans.js";
import { resolveTelemetrySettings } from "./settings.js";
import { startTelemetry, type Telemetry } from "./start.js";

const SECRET = "sk-live-0123456789";

/** An OTLP/HTTP JSON receiver: each request's path and parsed body, as they arrive. */
async function receiver(
  answer = true,
): Promise<{ server: Server; url: string; bodies: Map<string, unknown[]> }> {
  const bodies = new Map<string, unknown[]>();
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const list = bodies.get(request.url ?? "") ?? [];
      list.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      bodies.set(request.url ?? "", list);
      server.emit("received", request.url);
      if (answer) response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

let telemetry: Telemetry | undefined;
let server: Server | undefined;

afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
  server?.closeAllConnections();
  server?.close();
  for (const api of [trace, metrics, context, propagation]) api.disable();
  setCaptureMessageContent(undefined);
});

describe("startTelemetry", () => {
  it("exports spans and metrics as OTLP JSON, redacted, under the daemon's service name", async () => {
    const fixture = await receiver();
    server = fixture.server;
    const settings = resolveTelemetrySettings(
      {},
      { endpoint: fixture.url, protocol: "http/json", captureMessageContent: true },
    );
    if (!settings) throw new Error("settings expected");
    telemetry = await startTelemetry({
      service: "olliesrv",
      version: "1.2.3",
      settings,
      redact: (text) => text.replaceAll(SECRET, "[redacted]"),
    });
    expect(captureMessageContent()).toBe(true);
    const tracer = ollieTracer("@ollie/test");
    await inSpan(tracer, "outer", { attributes: { "url.full": `https://x/?key=${SECRET}` } }, async () => {
      await inSpan(tracer, "inner", {}, async (span) => span.addEvent(`retry with ${SECRET}`));
    });
    ollieInstruments("@ollie/test").cost.add(0.5, { "gen_ai.request.model": "m" });
    await telemetry.forceFlush();

    const raw = JSON.stringify([...fixture.bodies.entries()]);
    expect(raw).not.toContain(SECRET);
    const [traces] = fixture.bodies.get("/v1/traces") as [
      {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: { name: string; parentSpanId?: string; spanId: string }[] }[];
        }[];
      },
    ];
    const resource = traces.resourceSpans[0]?.resource.attributes ?? [];
    expect(resource).toContainEqual({ key: "service.name", value: { stringValue: "olliesrv" } });
    expect(resource).toContainEqual({ key: "service.version", value: { stringValue: "1.2.3" } });
    const spans = traces.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const outer = spans.find((span) => span.name === "outer");
    expect(spans.find((span) => span.name === "inner")?.parentSpanId).toBe(outer?.spanId);
    expect(raw).toContain("[redacted]");
    expect(JSON.stringify(fixture.bodies.get("/v1/metrics"))).toContain("ollie.cost.usage");
  });

  it("stops within its limit when the collector never answers", async () => {
    const fixture = await receiver(false);
    server = fixture.server;
    const settings = resolveTelemetrySettings(
      {},
      { endpoint: fixture.url, protocol: "http/json", metrics: false },
    );
    if (!settings) throw new Error("settings expected");
    telemetry = await startTelemetry({ service: "olliesrv", version: "0", settings });
    await inSpan(ollieTracer("@ollie/test"), "held", {}, async () => {});
    const exporting = once(fixture.server, "received");
    void telemetry.forceFlush();
    await exporting;
    // The export is now waiting on an answer that never comes; shutdown must still return.
    await telemetry.shutdown(50);
    telemetry = undefined;
  });
});
