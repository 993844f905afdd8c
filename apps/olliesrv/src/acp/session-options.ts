import type { SessionConfigOption, SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import type { Agent, AgentConfig, OllieClient } from "@ollie/client";

/** The config option that picks the model. */
export const MODEL_OPTION = "model";

/**
 * The session's modes: Ollie's agent profiles (the broken ones left out), the agent's own the current one.
 * Switching the mode switches the profile: a new runtime and tools, and a fresh history.
 */
export async function sessionModes(client: OllieClient, cfg: AgentConfig): Promise<SessionModeState> {
  return { currentModeId: cfg.profile, availableModes: await availableModes(client) };
}

/** The profiles a session may switch to: every one but the broken. */
export async function availableModes(client: OllieClient): Promise<SessionMode[]> {
  return (await client.profiles())
    .filter((p) => p.problem === undefined)
    .map((p) => ({ id: p.name, name: p.name, ...(p.description && { description: p.description }) }));
}

/**
 * The session's config options: the model, among those its backend lists (none when it lists none, as a
 * backend that cannot say which it serves).
 */
export async function sessionConfig(agent: Agent, cfg: AgentConfig): Promise<SessionConfigOption[]> {
  const models = await agent.models().catch(() => []);
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
