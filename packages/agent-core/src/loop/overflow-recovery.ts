import { ContextOverflowError } from "@ollie/backends";
import { compactionDecision } from "../compaction/compaction-options.js";
import type { TurnContext } from "./turn-context.js";

/**
 * The provider said the conversation does not fit its window: compact once and try again ("retry"), or
 * give up with an error that says why the compaction could not help (or, when a budget refused the
 * compaction, with the budget's reason). `compactedAlready`: this turn already
 * compacted for an overflow.
 */
export async function recoverFromOverflow(
  t: TurnContext,
  error: ContextOverflowError,
  compactedAlready: boolean,
  signal: AbortSignal,
): Promise<"retry" | "interrupted" | { budget: string } | ContextOverflowError> {
  const verdict = compactedAlready
    ? "give up"
    : compactionDecision(t.compaction, "overflow", { fraction: 1, autoInRow: t.autoCompactions });
  let why = "automatic compaction is off";
  if (compactedAlready && verdict === "give up" && t.compaction.auto)
    why = "it still did not fit after compacting";
  if (verdict === "compact") {
    t.autoCompactions++;
    const done = await t.compact("overflow", signal);
    if (signal.aborted) return "interrupted";
    if (done.compacted && done.progress) return "retry";
    // The compaction the turn needed would pass a budget: the turn ends as the budget says.
    if (done.budget !== undefined) return { budget: done.budget };
    why = done.compacted ? "compaction saved too little" : "the compaction did not happen";
  } else if (t.compaction.auto && t.autoCompactions >= t.compaction.maxAutoInRow) {
    why = `it was already compacted ${t.autoCompactions} times since the last prompt`;
  }
  return new ContextOverflowError({
    provider: error.provider,
    ...(error.profile !== undefined && { profile: error.profile }),
    ...(error.status !== undefined && { status: error.status }),
    providerMessage: `${error.providerMessage} (the conversation does not fit the model's context window, and ${why})`,
  });
}
