// The `ollie.compaction` span: a compaction with its hooks and its summary request nested inside.

import { ATTR, inSpan, recordFailure } from "@ollie/telemetry";
import { SpanKind } from "@opentelemetry/api";
import { agentTracer, failureType } from "./agent-telemetry.js";
import { LOOP_ATTR } from "./loop-names.js";

/** What the compaction tells its span besides its result: the sizes, or the failure it swallowed. */
export interface CompactionNote {
  tokensBefore?: number;
  tokensAfter?: number;
  failure?: unknown;
}

/** Runs a compaction (`work`, which never throws: it reports a failure in its note) in its span. */
export function traceCompaction<T extends { compacted: boolean; budget?: string }>(
  trigger: string,
  work: (note: CompactionNote) => Promise<T>,
): Promise<T> {
  return inSpan(
    agentTracer(),
    "ollie.compaction",
    { kind: SpanKind.INTERNAL, attributes: { [ATTR.compactionTrigger]: trigger } },
    async (span) => {
      const note: CompactionNote = {};
      const done = await work(note);
      if (!span.isRecording()) return done;
      span.setAttribute(ATTR.compactionCompacted, done.compacted);
      if (note.tokensBefore !== undefined) span.setAttribute(ATTR.compactionTokensBefore, note.tokensBefore);
      if (note.tokensAfter !== undefined) span.setAttribute(ATTR.compactionTokensAfter, note.tokensAfter);
      if (done.budget !== undefined) span.setAttribute(LOOP_ATTR.compactionRefusal, done.budget);
      if (note.failure !== undefined) recordFailure(span, note.failure, failureType(note.failure));
      return done;
    },
  );
}
