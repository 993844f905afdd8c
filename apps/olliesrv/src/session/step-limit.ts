import { DEFAULT_MAX_STEPS } from "@ollie/agent-core";
import type { AgentSlot } from "./agent-slot.js";

/** The rounds of tool calls a turn of the slot's profile may make: the profile's `maxSteps`, else 50. */
export async function profileStepLimit(slot: AgentSlot): Promise<number> {
  return (await slot.profileInUse()).config.maxSteps ?? DEFAULT_MAX_STEPS;
}

/**
 * The rounds of tool calls the slot's turns may make now (its `cfg`'s `maxsteps`): the live agent's, else
 * the limit it was given, else its profile's — undefined when the profile cannot be read.
 */
export async function stepLimit(slot: AgentSlot): Promise<number | undefined> {
  if (slot.agent) return slot.agent.runtime.maxSteps;
  return slot.choices.maxSteps ?? profileStepLimit(slot).catch(() => undefined);
}
