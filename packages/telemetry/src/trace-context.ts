// W3C trace context (https://www.w3.org/TR/trace-context/) as Ollie carries it between processes: a
// `traceparent`/`tracestate` pair in a toolsrv call file or a session spec, and TRACEPARENT/TRACESTATE in a
// process's environment (OpenTelemetry's environment carrier). Written here rather than through the global
// propagator so that it works whether or not an SDK registered one: toolsrv without an exporter still hands
// its caller's context on to the tool it runs.
import {
  type Context,
  context,
  createTraceState,
  type Link,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from "@opentelemetry/api";

/** A span's context in W3C form: what a call file, a session spec or an environment carries. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;
/** The specification's limit on `tracestate`; longer values are dropped rather than cut. */
const TRACESTATE_MAX = 512;

/**
 * The span context a `traceparent` names, or undefined if it is not a valid one: version ff, all-zero ids,
 * and (for version 00) anything after the flags are refused, as the specification says.
 */
export function parseTraceparent(traceparent: string, tracestate?: string): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  const spanContext: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
  };
  if (tracestate !== undefined && tracestate !== "" && tracestate.length <= TRACESTATE_MAX) {
    spanContext.traceState = createTraceState(tracestate);
  }
  return spanContext;
}

/** Whether a string is a `traceparent` Ollie accepts (for schemas that check what they are given). */
export const isTraceparent = (value: string): boolean => parseTraceparent(value) !== undefined;

/**
 * The carrier of the span active in `ctx`, or undefined when there is none or it is not sampled: what is not
 * recorded need not travel, and calls made without tracing stay exactly as they were.
 */
export function traceCarrierOf(ctx: Context = context.active()): TraceCarrier | undefined {
  const spanContext = trace.getSpanContext(ctx);
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  if ((spanContext.traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
  const carrier: TraceCarrier = { traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}` };
  const tracestate = spanContext.traceState?.serialize();
  if (tracestate) carrier.tracestate = tracestate;
  return carrier;
}

/** `base` (the root context by default) with the carrier's span as the remote parent; `base` if it is invalid. */
export function contextFromCarrier(carrier: TraceCarrier | undefined, base: Context = ROOT_CONTEXT): Context {
  const spanContext = carrier && parseTraceparent(carrier.traceparent, carrier.tracestate);
  return spanContext ? trace.setSpanContext(base, spanContext) : base;
}

/** A link to the carrier's span (for a callback or a later turn a spawn asked for), or undefined. */
export function linkFromCarrier(
  carrier: TraceCarrier | undefined,
  attributes?: Link["attributes"],
): Link | undefined {
  const spanContext = carrier && parseTraceparent(carrier.traceparent, carrier.tracestate);
  if (!spanContext) return undefined;
  return attributes ? { context: spanContext, attributes } : { context: spanContext };
}

/** TRACEPARENT (and TRACESTATE) for a child process's environment, or {} when nothing is traced. */
export function traceEnv(carrier: TraceCarrier | undefined): Record<string, string> {
  if (!carrier) return {};
  return carrier.tracestate
    ? { TRACEPARENT: carrier.traceparent, TRACESTATE: carrier.tracestate }
    : { TRACEPARENT: carrier.traceparent };
}

/** The carrier a process was started with, from its environment, if valid. */
export function carrierFromEnv(env: Readonly<Record<string, string | undefined>>): TraceCarrier | undefined {
  const traceparent = env.TRACEPARENT;
  if (!traceparent || !isTraceparent(traceparent)) return undefined;
  return env.TRACESTATE ? { traceparent, tracestate: env.TRACESTATE } : { traceparent };
}
