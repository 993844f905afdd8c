// toolsrv's span of a call, `toolsrv.call {tool}`: a SERVER span, the child of the caller's span when the
// call brought one (its `traceparent`), saying which agent called, under which sandbox policy, and how the
// call ended. With no SDK registered it records nothing, and costs a no-op span.
import { launcherRefusal } from "@ollie/sandbox";
import { ATTR, contextFromCarrier, ollieTracer, recordFailure, type TraceCarrier } from "@ollie/telemetry";
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { CallTiming } from "../exec/call-timing.js";
import type { RunTrace } from "../exec/launch-span.js";
import { limitThatStopped } from "../exec/limit-stop.js";
import type { CallResult } from "../protocol/call.js";
import { callResultAttributes, TRACER_SCOPE } from "../tracing/call-attributes.js";

export interface CallSpanOptions {
  tool: string;
  /** The calling agent. */
  uname: string;
  /** The name of the sandbox policy the tool runs under; none for a builtin, which runs in toolsrv. */
  policy?: string;
  /** The caller's trace context, from the call. */
  carrier?: TraceCarrier;
  /** The call's phases so far and to come, added to the span as events. */
  timing?: CallTiming;
}

/** What a call's work needs of its span. */
export interface CallTrace {
  /** The trace of the runs the call starts: under the call's span, with the caller's context to hand on. */
  readonly run: RunTrace;
  /** The call was refused before anything ran: `error.type` and the reason. */
  refuse(errorType: string, reason: string): void;
  /** The tool could not start (its policy was refused, its file is gone…). */
  couldNotStart(error: unknown): void;
}

/** Runs a call's work in its span, and ends the span with how the call ended. */
export async function inCallSpan(
  options: CallSpanOptions,
  work: (call: CallTrace) => Promise<CallResult>,
): Promise<CallResult> {
  const parent = contextFromCarrier(options.carrier);
  const attributes: Attributes = { [ATTR.toolName]: options.tool, [ATTR.agentId]: options.uname };
  if (options.policy !== undefined) attributes[ATTR.sandboxPolicy] = options.policy;
  const span = ollieTracer(TRACER_SCOPE).startSpan(
    `toolsrv.call ${options.tool}`,
    { kind: SpanKind.SERVER, attributes },
    parent,
  );
  const active = trace.setSpan(parent, span);
  let failed = false;
  const call: CallTrace = {
    run: { context: active, ...(options.carrier && { carrier: options.carrier }) },
    refuse(errorType, reason) {
      failed = true;
      if (!span.isRecording()) return;
      span.setAttribute(ATTR.errorType, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    },
    couldNotStart(error) {
      failed = true;
      recordFailure(span, error);
    },
  };
  try {
    const result = await context.with(active, () => work(call));
    if (span.isRecording()) {
      span.setAttributes(callResultAttributes(result));
      const errorType = failed ? undefined : resultErrorType(result);
      if (errorType !== undefined) {
        span.setAttribute(ATTR.errorType, errorType);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    return result;
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    if (options.timing && span.isRecording()) addPhases(span, options.timing);
    span.end();
  }
}

/**
 * `error.type` of a call that ran and failed: stopped at its timeout, cancelled, left without a result (its
 * launcher service or MCP server died), refused by the sandbox launcher, ended at a resource limit, or the
 * tool's own failure (a non-zero exit, a signal, an MCP error result).
 */
function resultErrorType(result: CallResult): string | undefined {
  if (!result.isError) return undefined;
  if (result.timedOut) return "timeout";
  if (result.cancelled) return "cancelled";
  if (result.failure !== undefined) return "no_result";
  if (launcherRefusal(result.exitCode, result.stderr ?? "") !== undefined) return "sandbox_refused";
  if (limitThatStopped(result)) return "limit_reached";
  return "tool_error";
}

/** The phases CallTiming marked, each an event at its end with how long it took. */
function addPhases(span: Span, timing: CallTiming): void {
  for (const { phase, at, ms } of timing.marks)
    span.addEvent(phase, { "ollie.duration_ms": Math.round(ms * 1000) / 1000 }, performance.timeOrigin + at);
}
