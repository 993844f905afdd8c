// Where a spawned session's turns belong in a trace. A spawn tool hands olliesrv its TRACEPARENT (the span of
// the tool call that spawns) in the session spec; the first turn the spawner asks of the new session becomes
// that span's child, so one trace runs from the spawner's turn through toolsrv and the tool into the child's
// turn. A spec is written by a sandboxed process, though: its trace context is believed only when it names the
// trace of the spawning agent's running turn (or comes from the owner); any other is kept as a link, so an
// agent cannot put spans into a trace not its own. A callback's turn links back to the turn that called back.
import type { SubmitOptions } from "@ollie/agent-core";
import { ATTR, parseTraceparent, type TraceCarrier } from "@ollie/telemetry";
import type { SpanContext } from "@opentelemetry/api";

/** What the first turn asked by the spawner is submitted with. */
export function spawnedTurnTrace(
  carrier: TraceCarrier,
  spawningTurn: SpanContext | undefined,
  fromOwner: boolean,
): SubmitOptions | undefined {
  const spawnSpan = parseTraceparent(carrier.traceparent, carrier.tracestate);
  if (!spawnSpan) return undefined;
  if (fromOwner || (spawningTurn !== undefined && spawnSpan.traceId === spawningTurn.traceId)) {
    return { parent: carrier };
  }
  return { links: [{ context: spawnSpan, attributes: { [ATTR.link]: "spawn" } }] };
}

/** What a callback's turn is submitted with: a link to the turn that called back, when it was recorded. */
export function callbackTrace(reportedTurn: SpanContext | undefined): SubmitOptions | undefined {
  return reportedTurn && { links: [{ context: reportedTurn, attributes: { [ATTR.link]: "callback" } }] };
}
