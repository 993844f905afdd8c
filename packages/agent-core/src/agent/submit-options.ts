import type { TraceCarrier } from "@ollie/telemetry";
import type { Context, Link } from "@opentelemetry/api";

/** How a prompt is submitted: for now, where its turn belongs in a trace. */
export interface SubmitOptions {
  /**
   * The parent of the turn's `invoke_agent` span: a Context, or a W3C carrier (`{ traceparent, tracestate? }`)
   * from another process (the tool call that spawned this agent, say). Default: the context active when
   * `submit` is called. An invalid carrier makes the turn the root of a trace of its own.
   */
  parent?: Context | TraceCarrier;
  /** Spans the turn's span links to: a callback's turn links to the child's turn that called back, say. */
  links?: readonly Link[];
}
