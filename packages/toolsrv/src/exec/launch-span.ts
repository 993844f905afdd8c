// The span of a sandboxed tool process, `sandbox.launch {tool}`: from the launcher's start to the process's
// exit. The native launcher emits no spans itself; this one stands for it, and is the parent the tool's own
// instrumentation finds in TRACEPARENT (OpenTelemetry's environment carrier).
import type { SandboxExit } from "@ollie/sandbox";
import {
  ATTR,
  ollieTracer,
  recordFailure,
  type TraceCarrier,
  traceCarrierOf,
  traceEnv,
} from "@ollie/telemetry";
import { type Context, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { TRACER_SCOPE } from "../tracing/call-attributes.js";

/** The trace a run belongs to: the call's. */
export interface RunTrace {
  /** The call's span, the launch span's parent (the active context by default). */
  context?: Context;
  /**
   * The caller's trace context as its call brought it: what the tool gets, unchanged, when toolsrv records
   * no spans of its own (no SDK registered), so that the tool still joins the caller's trace.
   */
  carrier?: TraceCarrier;
  /**
   * A run no call waits for (a background call, a companion): its span ends once the process has started,
   * rather than lasting as long as the process may.
   */
  detached?: boolean;
}

/** How one process's launch is traced; every method is cheap when nothing is recorded. */
export interface LaunchSpan {
  /** The environment with the trace context the tool gets: the launch span's, else the caller's. */
  env(base: Record<string, string>): Record<string, string>;
  started(pid: number | undefined): void;
  /**
   * The process ended (`cancelled`: by its signal or a kill); `refusal` is the launcher's own refusal (its
   * exit status 125, 126 or 127), if it was one.
   */
  exited(exit: SandboxExit, cancelled: boolean, refusal?: string): void;
  /** The launch failed, or the launcher service died under the process. */
  failed(error: unknown): void;
}

export function startLaunchSpan(tool: string, runTrace: RunTrace = {}): LaunchSpan {
  const parent = runTrace.context ?? context.active();
  const span: Span = ollieTracer(TRACER_SCOPE).startSpan(
    `sandbox.launch ${tool}`,
    { kind: SpanKind.INTERNAL, attributes: { [ATTR.toolName]: tool } },
    parent,
  );
  let open = true;
  const end = () => {
    if (!open) return;
    open = false;
    span.end();
  };
  const carrier = span.isRecording() ? traceCarrierOf(trace.setSpan(parent, span)) : runTrace.carrier;
  return {
    env(base) {
      if (!carrier) return base;
      // The session's own TRACEPARENT and TRACESTATE give way, both: a TRACESTATE left from another trace
      // would be read with this one's TRACEPARENT.
      const { TRACEPARENT: _parent, TRACESTATE: _state, ...rest } = base;
      return { ...rest, ...traceEnv(carrier) };
    },
    started(pid) {
      if (pid !== undefined && span.isRecording()) span.setAttribute(ATTR.processId, pid);
      if (runTrace.detached) end();
    },
    exited(exit, cancelled, refusal) {
      if (!open) return;
      if (span.isRecording()) {
        if (exit.exitCode !== null) span.setAttribute(ATTR.toolExitCode, exit.exitCode);
        if (exit.signal !== null) span.setAttribute(ATTR.toolSignal, exit.signal);
        span.setAttribute(ATTR.toolTimedOut, exit.timedOut);
        span.setAttribute(ATTR.toolCancelled, cancelled);
        if (exit.reached.length > 0)
          span.setAttribute(
            ATTR.toolLimitsReached,
            exit.reached.map((reached) => reached.limit),
          );
        if (refusal !== undefined) {
          span.setAttribute(ATTR.errorType, String(exit.exitCode));
          span.setStatus({ code: SpanStatusCode.ERROR, message: `ollie-sandbox: ${refusal}` });
        }
      }
      end();
    },
    failed(error) {
      if (!open) return;
      recordFailure(span, error);
      end();
    },
  };
}
