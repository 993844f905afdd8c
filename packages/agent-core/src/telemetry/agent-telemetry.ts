// What agent-core's instrumentation shares: its tracer and instruments, whether anything records them, and
// how a failure is named. All of it goes through @opentelemetry/api alone: without an SDK registered by the
// application, spans and instruments are no-ops, and the loop skips the attributes it would throw away.

import { BackendError } from "@ollie/backends";
import {
  errorTypeOf,
  GENAI_SEMCONV_VERSION,
  type OllieInstruments,
  ollieInstruments,
  ollieTracer,
} from "@ollie/telemetry";
import {
  createNoopMeter,
  INVALID_SPAN_CONTEXT,
  type MeterProvider,
  metrics,
  ProxyTracer,
  ProxyTracerProvider,
  type Span,
  type Tracer,
  trace,
} from "@opentelemetry/api";

const SCOPE = "@ollie/agent-core";

let tracing: { provider: unknown; tracer: Tracer; live: boolean } | undefined;

/** The tracer of the provider registered now, and whether there is one (else the API's stand-in). */
function currentTracing() {
  const registered = trace.getTracerProvider();
  // The API hands out one proxy whatever is registered: what tells them apart is its delegate.
  const provider = registered instanceof ProxyTracerProvider ? registered.getDelegate() : registered;
  if (tracing?.provider !== provider) {
    const tracer = ollieTracer(SCOPE);
    tracing = { provider, tracer, live: !(tracer instanceof ProxyTracer) };
  }
  return tracing;
}

/**
 * What stands for a span when no tracer provider is registered: the API would make a no-op span of its own,
 * and a context to carry it, for nothing. What runs under it sees the context it would have seen anyway.
 */
export const UNTRACED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** The package's tracer, from the tracer provider registered now. */
export function agentTracer(): Tracer {
  return currentTracing().tracer;
}

/** Whether a tracer provider is registered: whether a span's attributes are worth making. */
export function tracingLive(): boolean {
  return currentTracing().live;
}

let measuring: { provider: MeterProvider; live: boolean } | undefined;

/** Whether a meter provider is registered: whether a measurement's attributes are worth making. */
export function metricsLive(): boolean {
  const provider = metrics.getMeterProvider();
  if (measuring?.provider !== provider) {
    measuring = { provider, live: provider.getMeter(SCOPE, GENAI_SEMCONV_VERSION) !== createNoopMeter() };
  }
  return measuring.live;
}

/** The package's metric instruments, from the meter provider registered now. */
export function agentInstruments(): OllieInstruments {
  return ollieInstruments(SCOPE);
}

/**
 * `error.type` for a failure: a backend's failure by its class (`RateLimitError`, `UnreachableError`: what
 * the loop decides by, rather than the system code one carries), anything else as @ollie/telemetry names it.
 */
export function failureType(error: unknown): string {
  return error instanceof BackendError ? error.name : errorTypeOf(error);
}
