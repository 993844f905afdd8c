import type { Message, Tool } from "@ollie/backends";
import { compactionDecision } from "../compaction/compaction-options.js";
import { type Runtime, requestMessages } from "../runtime/runtime.js";
import type { TurnContext } from "./turn-context.js";

/** What the next model request carries, and the runtime it goes out with. */
export interface RequestPlan {
  runtime: Runtime;
  messages: Message[];
  tools: readonly Tool[];
}

function planOf(t: TurnContext): RequestPlan {
  const runtime = t.runtime;
  // The tools are offered on the last step too: a history with calls in it and no tools is refused by some
  // providers, and the prompt cache keeps its prefix. A call made there is not run.
  return {
    runtime,
    messages: requestMessages(runtime.preamble, t.history.messages),
    tools: runtime.toolSchemas,
  };
}

/**
 * The next request, the history compacted first when the request has grown past the threshold of the
 * model's window. Undefined when the turn was interrupted meanwhile.
 */
export async function nextRequest(t: TurnContext, signal: AbortSignal): Promise<RequestPlan | undefined> {
  const plan = planOf(t);
  const figures = await t.measure(plan.messages, plan.tools);
  const decision = compactionDecision(t.compaction, "threshold", {
    fraction: figures.fraction,
    autoInRow: t.autoCompactions,
  });
  if (decision !== "compact") return plan;
  t.autoCompactions++;
  const done = await t.compact("threshold", signal);
  if (signal.aborted) return undefined;
  if (done.compacted && !done.progress) t.autoCompactions = t.compaction.maxAutoInRow;
  return planOf(t);
}
