// The last gate before spans leave the daemon: every string on a span (its name, attributes, events, links
// and status) passes through the daemon's redactor, the one its log uses, so a secret that reached a span by
// any path (an error message quoting a URL with a key, a tool's output captured as content) is not exported.
import type { Attributes, AttributeValue } from "@opentelemetry/api";
import type { ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

type Redact = (text: string) => string;

function redactValue(value: AttributeValue | undefined, redact: Redact): AttributeValue | undefined {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) {
    return value.map((item) => (typeof item === "string" ? redact(item) : item)) as AttributeValue;
  }
  return value;
}

function redactAttributes(attributes: Attributes | undefined, redact: Redact): Attributes {
  const redacted: Attributes = {};
  for (const [key, value] of Object.entries(attributes ?? {})) redacted[key] = redactValue(value, redact);
  return redacted;
}

/** The span as the exporter sees it: its strings redacted, everything else read through to the original. */
function redactSpan(span: ReadableSpan, redact: Redact): ReadableSpan {
  const copy = Object.create(span) as ReadableSpan;
  const status =
    span.status.message === undefined
      ? span.status
      : { ...span.status, message: redact(span.status.message) };
  return Object.defineProperties(copy, {
    name: { value: redact(span.name) },
    attributes: { value: redactAttributes(span.attributes, redact) },
    events: {
      value: span.events.map((event) => ({
        ...event,
        name: redact(event.name),
        attributes: event.attributes && redactAttributes(event.attributes, redact),
      })),
    },
    links: {
      value: span.links.map((link) => ({
        ...link,
        attributes: link.attributes && redactAttributes(link.attributes, redact),
      })),
    },
    status: { value: status },
  });
}

export class RedactingSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly redact: Redact,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(
      spans.map((span) => redactSpan(span, this.redact)),
      resultCallback,
    );
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
