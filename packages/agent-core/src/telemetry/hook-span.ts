// The `ollie.hook {event}` span of an event's hooks, current while they run: a shell hook gets its
// TRACEPARENT, so that what it does can join the trace.

import { ATTR, inSpan } from "@ollie/telemetry";
import { SpanKind } from "@opentelemetry/api";
import { agentTracer } from "./agent-telemetry.js";
import { LOOP_ATTR } from "./loop-names.js";

/**
 * Runs an event's hooks (`work`) in their span; `said` reads what they decided (`continue`, `block`,
 * `handled`…) and how many warnings they gave.
 */
export function traceHook<T>(
  event: string,
  work: () => Promise<T>,
  said: (result: T) => { action: string; warnings: number },
): Promise<T> {
  return inSpan(
    agentTracer(),
    `ollie.hook ${event}`,
    { kind: SpanKind.INTERNAL, attributes: { [ATTR.hookEvent]: event } },
    async (span) => {
      const result = await work();
      if (span.isRecording()) {
        const { action, warnings } = said(result);
        span.setAttributes({ [ATTR.hookAction]: action, [LOOP_ATTR.hookWarnings]: warnings });
      }
      return result;
    },
  );
}
