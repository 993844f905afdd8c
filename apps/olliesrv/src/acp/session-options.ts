import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk";
import type { Agent, OllieClient } from "@ollie/client";

/** The config option that picks the model. */
export const MODEL_OPTION = "model";

/**
 * The session's modes: Ollie's agent profiles (the broken ones left out), the agent's own the current one.
 * Switching the mode switches the profile: a new runtime and tools, and a fresh history.
 */
export async function sessionModes(client: OllieClient, agent: Agent): Promise<SessionModeState> {
  const [profiles, cfg] = await Promise.all([client.profiles(), agent.cfg()]);
  return {
    currentModeId: cfg.profile,
    availableModes: profiles
      .filter((p) => p.problem === undefined)
      .map((p) => ({ id: p.name, name: p.name, ...(p.description && { description: p.description }) })),
  };
}

/**
 * The session's config options: the model, among those its backend lists (none when it lists none, as a
 * backend that cannot say which it serves).
 */
export async function sessionConfig(agent: Agent): Promise<SessionConfigOption[]> {
  const [models, cfg] = await Promise.all([agent.models().catch(() => []), agent.cfg()]);
  if (models.length === 0) return [];
  const ids = models.map((m) => m.id);
  const current = cfg.model ?? ids[0]!;
  if (!ids.includes(current)) ids.unshift(current);
  return [
    {
      id: MODEL_OPTION,
      name: "Model",
      category: "model",
      type: "select",
      currentValue: current,
      options: ids.map((id) => ({ value: id, name: id })),
    },
  ];
}
