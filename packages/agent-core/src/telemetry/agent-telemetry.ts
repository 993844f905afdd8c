// What agent-core's instrumentation shares: its tracer and instruments, and how a failure is named. All of
// it goes through @opentelemetry/api alone: without an SDK registered by the application, spans are no-ops
// and the loop pays for little more than the calls.

import { BackendError } from "@ollie/backends";
import { errorTypeOf, type OllieInstruments, ollieInstruments, ollieTracer } from "@ollie/telemetry";
import type { Tracer, TracerProvider } from "@opentelemetry/api";
import { trace } from "@opentelemetry/api";

const SCOPE = "@ollie/agent-core";

let made: { provider: TracerProvider; tracer: Tracer } | undefined;

/**
 * The package's tracer, from the tracer provider registered now: asked again when the application registers
 * (or removes) one, so that a tracer made before that does not stay a stand-in.
 */
export function agentTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (made?.provider !== provider) made = { provider, tracer: ollieTracer(SCOPE) };
  return made.tracer;
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
