import type { Backend, Message, Tool } from "@ollie/backends";
import type { ContextFigures } from "../context/context-meter.js";
import type { UsageMeter } from "../history/usage-meter.js";
import type { PlannedRequest, SpendingGate } from "./spending-gate.js";

/** What asking an agent's spending gate reads of it. */
export interface GatedAgent {
  readonly spending: SpendingGate | undefined;
  readonly usage: UsageMeter;
  measure(messages: readonly Message[], tools: readonly Tool[]): Promise<ContextFigures>;
}

/** What the agent's spending gate says of a request of `messages` to `backend`: a reason, or undefined. */
export async function askSpendingGate(
  agent: GatedAgent,
  backend: Pick<Backend, "provider" | "model">,
  messages: readonly Message[],
  tools: readonly Tool[],
  purpose: PlannedRequest["purpose"],
): Promise<string | undefined> {
  if (!agent.spending) return undefined;
  const { tokens } = await agent.measure(messages, tools);
  return agent.spending.beforeRequest({
    provider: backend.provider,
    model: backend.model,
    inputTokens: tokens,
    spent: agent.usage.session,
    purpose,
  });
}
