// Running work inside a span: started under an explicit parent (an agent's turn runs long after the prompt
// that asked for it, in another async context), made current for the work so that nested instrumentation
// finds it, ended however the work ends, with the failure recorded as the conventions say.
import {
  type Attributes,
  type Context,
  context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { ATTR, GENAI_SEMCONV_VERSION } from "./semconv.js";

/** The tracer of one of Ollie's libraries or daemons; a no-op until an SDK is registered. */
export function ollieTracer(scope: string): Tracer {
  return trace.getTracer(scope, GENAI_SEMCONV_VERSION);
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** The parent; the active context by default. */
  parent?: Context;
}

/**
 * `error.type` for a failure: an error's `code` when it is a string (a system error's ENOENT), else its class
 * name, else `_OTHER`, the conventions' fallback.
 */
export function errorTypeOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    if (error.name && error.name !== "Error") return error.name;
    if (error.constructor.name && error.constructor.name !== "Error") return error.constructor.name;
  }
  return "_OTHER";
}

/** Marks a span failed: its status, `error.type` and the exception as an event. */
export function recordFailure(span: Span, error: unknown, errorType = errorTypeOf(error)): void {
  if (!span.isRecording()) return;
  span.setAttribute(ATTR.errorType, errorType);
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  if (error instanceof Error) span.recordException(error);
}

/**
 * Runs `work` in a new span, current for the work's duration, and ends it when the work settles; a thrown
 * error is recorded and thrown on. The work may set more attributes, or a failure it returns rather than throws.
 */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}
