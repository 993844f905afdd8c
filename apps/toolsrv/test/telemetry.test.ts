import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { context, ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { BIN, homes, scratch, shTool, startDaemon, WAIT } from "./daemon.js";

const s = scratch("toolsrv-telemetry-");
afterAll(() => s.remove());
// biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's parameter expansion
s.tool("show_trace", shTool("show_trace", "", 'echo "${TRACEPARENT-unset}"'));
mkdirSync(join(s.config, "ollie", "sandbox"), { recursive: true });
writeFileSync(join(s.config, "ollie", "sandbox", "tight.yaml"), "network:\n  enabled: false\n");

const IMPORT_HOOK = fileURLToPath(new URL("./fixtures/import-log.mjs", import.meta.url));
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const signal = () => new AbortController().signal;

/** The OpenTelemetry packages a process resolved, by name, as the import hook logged them. */
function loadedPackages(log: string): Set<string> {
  if (!existsSync(log)) return new Set();
  return new Set(
    readFileSync(log, "utf8")
      .split("\n")
      .flatMap((url) => /\/node_modules\/(@opentelemetry\/[^/]+)\//.exec(url)?.[1] ?? []),
  );
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP JSON receiver: the resources' attributes and the spans it was sent. */
async function receiver() {
  const spans: OtlpSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  const server = createHttpServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const r of body.resourceSpans ?? []) {
          resources.push(attributesOf(r.resource.attributes));
          for (const scope of r.scopeSpans) spans.push(...scope.spans);
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, resources };
}

const attributesOf = (list: OtlpSpan["attributes"]) =>
  Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));

afterEach(() => context.disable());

describe("toolsrv's telemetry", () => {
  it("loads nothing of OpenTelemetry's SDK when no OTEL_* variable asks for it, and still traces nothing", async () => {
    const log = join(s.root, "imports-off.log");
    const daemon = await startDaemon(s, [], { NODE_OPTIONS: `--import=${IMPORT_HOOK}`, IMPORT_LOG: log });
    try {
      const conn = await daemon.conn("agent1", { autoLoad: ["show_trace"] });
      const r = await conn.callRaw({ tool: "show_trace", args: {} }, signal());
      expect(r.output).toBe("unset\n");
    } finally {
      await daemon.stop();
    }
    expect([...loadedPackages(log)]).toEqual(["@opentelemetry/api"]);
  });

  it("exports its spans over OTLP as the OTEL_* variables say, under the caller's trace, which the tool joins", async () => {
    const fixture = await receiver();
    const log = join(s.root, "imports-on.log");
    const daemon = await startDaemon(s, ["--sandbox", "tight"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: fixture.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_BSP_SCHEDULE_DELAY: "20",
      NODE_OPTIONS: `--import=${IMPORT_HOOK}`,
      IMPORT_LOG: log,
    });
    try {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      const caller = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: TRACE_ID,
        spanId: CALLER_SPAN,
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      });
      const conn = await daemon.conn("agent1", { autoLoad: ["show_trace"] });
      const r = await context.with(caller, () => conn.callRaw({ tool: "show_trace", args: {} }, signal()));
      const named = (name: string) => fixture.spans.find((span) => span.name === name);
      await vi.waitFor(() => {
        expect(named("toolsrv.call show_trace")).toBeDefined();
        expect(named("sandbox.launch show_trace")).toBeDefined();
      }, WAIT);
      const call = named("toolsrv.call show_trace")!;
      const launch = named("sandbox.launch show_trace")!;
      expect(call).toMatchObject({ traceId: TRACE_ID, parentSpanId: CALLER_SPAN, kind: 2 });
      expect(attributesOf(call.attributes)).toMatchObject({
        "gen_ai.tool.name": "show_trace",
        "ollie.agent.id": "agent1",
        "ollie.sandbox.policy": "tight",
        "ollie.tool.exit_code": 0,
      });
      expect(launch).toMatchObject({ traceId: TRACE_ID, parentSpanId: call.spanId });
      expect(r.output).toBe(`00-${TRACE_ID}-${launch.spanId}-01\n`);
      expect(fixture.resources[0]).toMatchObject({
        "service.name": "toolsrv",
        "service.namespace": "ollie",
        "service.version": expect.any(String),
      });
    } finally {
      await daemon.stop();
      fixture.server.close();
    }
    expect(loadedPackages(log)).toContain("@opentelemetry/sdk-trace-base");
  });

  it("stops at SIGTERM even when its collector takes the connection and never answers", async () => {
    // A collector that would hold an export for a minute, longer than this test may take.
    const sockets = new Set<import("node:net").Socket>();
    const hole: Server = createTcpServer((socket) => sockets.add(socket));
    hole.listen(0, "127.0.0.1");
    await once(hole, "listening");
    const daemon = await startDaemon(s, [], {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(hole.address() as AddressInfo).port}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: "60000",
      OTEL_BSP_SCHEDULE_DELAY: "20",
    });
    try {
      const conn = await daemon.conn("agent1", { autoLoad: ["show_trace"] });
      await conn.callRaw({ tool: "show_trace", args: {} }, signal());
      // The export is under way, held by the collector, when toolsrv is told to stop.
      await vi.waitFor(() => expect(sockets.size).toBeGreaterThan(0), WAIT);
      await conn.close();
      daemon.child.kill("SIGTERM");
      expect((await daemon.child).exitCode).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      hole.close();
    }
  });

  it("refuses settings it cannot follow as a usage mistake, naming the variable", async () => {
    const r = await execa(process.execPath, [BIN, "-a", `unix!${join(s.root, "never.sock")}`], {
      env: {
        ...homes(s),
        PATH: process.env.PATH,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      },
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^toolsrv: OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported; use http\/protobuf or http\/json/,
    );
    expect(r.stderr).toMatch(/\nusage: toolsrv /);
  });
});
