// An OTLP/HTTP receiver for the tests: what the OpenTelemetry Collector would be, were one installable here.
// It takes /v1/traces and /v1/metrics in protobuf (decoded with protobufjs from the subset of
// opentelemetry-proto in fixtures/otlp-subset.proto) and JSON, answers as the specification says, and keeps
// every body as it came (for a test that looks for secrets in the bytes that left the daemon) and decoded.
import { EventEmitter, once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

const root = protobuf.loadSync(new URL("fixtures/otlp-subset.proto", import.meta.url).pathname);
const traceRequest = root.lookupType("otlp.ExportTraceServiceRequest");
const metricsRequest = root.lookupType("otlp.ExportMetricsServiceRequest");

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;
export type Attributes = Record<string, AttributeValue>;

export interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Attributes;
  events: { name: string; attributes: Attributes }[];
  links: { traceId: string; spanId: string; attributes: Attributes }[];
  status: { code: number; message: string };
}

export interface ReceivedPoint {
  attributes: Attributes;
  value?: number;
  count?: number;
  bounds?: number[];
}

export interface ReceivedMetric {
  service: string;
  scope: string;
  name: string;
  unit: string;
  points: ReceivedPoint[];
}

// Decoded protobuf (toObject with longs as numbers) and OTLP JSON share these shapes, but for ids (bytes, or
// hex strings in JSON) and 64-bit integers (numbers, or strings in JSON).
type Any = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: Any[] };
};
type KeyValues = { key: string; value?: Any }[] | undefined;
type Id = string | Uint8Array | undefined;

const attributeValueOf = (any: Any | undefined): AttributeValue => {
  if (!any) return undefined;
  if (any.stringValue !== undefined) return any.stringValue;
  if (any.boolValue !== undefined) return any.boolValue;
  if (any.intValue !== undefined) return Number(any.intValue);
  if (any.doubleValue !== undefined) return any.doubleValue;
  if (any.arrayValue) return (any.arrayValue.values ?? []).map(attributeValueOf);
  return undefined;
};

const attributesOf = (list: KeyValues): Attributes =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, attributeValueOf(value)]));

const hex = (id: Id): string =>
  id === undefined ? "" : typeof id === "string" ? id : Buffer.from(id).toString("hex");

interface Scoped<T> {
  resource?: { attributes?: KeyValues };
  scopeSpans?: { scope?: { name?: string }; spans?: T[] }[];
  scopeMetrics?: { scope?: { name?: string }; metrics?: T[] }[];
}

type RawSpan = {
  traceId?: Id;
  spanId?: Id;
  parentSpanId?: Id;
  name?: string;
  kind?: number;
  attributes?: KeyValues;
  events?: { name?: string; attributes?: KeyValues }[];
  links?: { traceId?: Id; spanId?: Id; attributes?: KeyValues }[];
  status?: { code?: number; message?: string };
};

type RawPoint = {
  attributes?: KeyValues;
  asDouble?: number;
  asInt?: number | string;
  count?: number | string;
  explicitBounds?: number[];
};
type RawMetric = {
  name?: string;
  unit?: string;
  sum?: { dataPoints?: RawPoint[] };
  gauge?: { dataPoints?: RawPoint[] };
  histogram?: { dataPoints?: RawPoint[] };
};

const serviceOf = (resource: Scoped<unknown>["resource"]) =>
  String(attributesOf(resource?.attributes)["service.name"] ?? "");

function spansOf(body: { resourceSpans?: Scoped<RawSpan>[] }): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scoped) =>
      (scoped.spans ?? []).map((span) => ({
        service: serviceOf(resourceSpans.resource),
        scope: scoped.scope?.name ?? "",
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: span.name ?? "",
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        events: (span.events ?? []).map((e) => ({
          name: e.name ?? "",
          attributes: attributesOf(e.attributes),
        })),
        links: (span.links ?? []).map((l) => ({
          traceId: hex(l.traceId),
          spanId: hex(l.spanId),
          attributes: attributesOf(l.attributes),
        })),
        status: { code: span.status?.code ?? 0, message: span.status?.message ?? "" },
      })),
    ),
  );
}

const pointOf = (point: RawPoint): ReceivedPoint => ({
  attributes: attributesOf(point.attributes),
  ...(point.asDouble !== undefined && { value: point.asDouble }),
  ...(point.asInt !== undefined && { value: Number(point.asInt) }),
  ...(point.count !== undefined && { count: Number(point.count) }),
  ...(point.explicitBounds !== undefined && { bounds: point.explicitBounds }),
});

function metricsOf(body: { resourceMetrics?: Scoped<RawMetric>[] }): ReceivedMetric[] {
  return (body.resourceMetrics ?? []).flatMap((resourceMetrics) =>
    (resourceMetrics.scopeMetrics ?? []).flatMap((scoped) =>
      (scoped.metrics ?? []).map((metric) => ({
        service: serviceOf(resourceMetrics.resource),
        scope: scoped.scope?.name ?? "",
        name: metric.name ?? "",
        unit: metric.unit ?? "",
        points: (metric.sum ?? metric.gauge ?? metric.histogram)?.dataPoints?.map(pointOf) ?? [],
      })),
    ),
  );
}

export class OtlpReceiver extends EventEmitter {
  readonly spans: ReceivedSpan[] = [];
  readonly metrics: ReceivedMetric[] = [];
  /** Every body as it arrived, with its content type. */
  readonly bodies: { path: string; contentType: string; body: Buffer }[] = [];
  /** The request headers of every export (where an OTLP header belongs). */
  readonly headers: IncomingMessage["headers"][] = [];

  private constructor(private readonly server: Server) {
    super();
  }

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on("request", (request: IncomingMessage, response: ServerResponse) =>
      receiver.take(request, response),
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return receiver;
  }

  /** The base address, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once `ready()` holds, looking again after each export that arrives. */
  async until<T>(ready: () => T | undefined | false): Promise<T> {
    for (;;) {
      const value = ready();
      if (value) return value;
      await once(this, "export");
    }
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }

  private take(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const path = request.url ?? "";
      const contentType = request.headers["content-type"] ?? "";
      const json = contentType.startsWith("application/json");
      if (request.method !== "POST" || (path !== "/v1/traces" && path !== "/v1/metrics")) {
        response.writeHead(404).end();
        return;
      }
      if (!json && contentType !== "application/x-protobuf") {
        response.writeHead(415).end();
        return;
      }
      this.bodies.push({ path, contentType, body });
      this.headers.push(request.headers);
      const type = path === "/v1/traces" ? traceRequest : metricsRequest;
      const decoded = json
        ? JSON.parse(body.toString("utf8"))
        : type.toObject(type.decode(body), { longs: Number, defaults: false });
      if (path === "/v1/traces") this.spans.push(...spansOf(decoded));
      else this.metrics.push(...metricsOf(decoded));
      // An empty ExportTraceServiceResponse/ExportMetricsServiceResponse: in JSON `{}`, in protobuf no bytes.
      response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      response.end(json ? "{}" : "");
      this.emit("export", path);
    });
  }
}
