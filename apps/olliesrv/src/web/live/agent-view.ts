import type {
  AgentActivity,
  AgentConfig,
  AgentCost,
  AgentUsage,
  Checkpoints,
  ContextSize,
  OllieClient,
  Outcome,
  SessionBudget,
  SessionEntry,
} from "@ollie/client";

/** What the agent page's panels show, read afresh each time one of them changes. */
export interface AgentView {
  session: SessionEntry;
  agent: string;
  cfg: AgentConfig | undefined;
  activity: AgentActivity | undefined;
  turns: number;
  outcome: Outcome | undefined;
  usage: AgentUsage | undefined;
  cost: AgentCost | undefined;
  context: ContextSize | undefined;
  budget: SessionBudget | undefined;
}

/** Reads the agent's panels; a file that cannot be read leaves its part empty. */
export async function readAgentView(
  client: OllieClient,
  session: SessionEntry,
  name: string,
): Promise<AgentView> {
  const agent = client.session(session.id).agent(name);
  const none = () => undefined;
  const [cfg, activity, turns, outcome, usage, cost, context, budget] = await Promise.all([
    agent.cfg().catch(none),
    agent.activity().catch(none),
    agent.turns().catch(() => 0),
    agent.outcome().catch(none),
    agent.usage().catch(none),
    agent.cost().catch(none),
    agent.contextSize().catch(none),
    client.session(session.id).budget().catch(none),
  ]);
  return { session, agent: name, cfg, activity, turns, outcome, usage, cost, context, budget };
}

/** The agent's checkpoints, or undefined when they cannot be read. */
export async function readCheckpoints(
  client: OllieClient,
  session: string,
  agent: string,
): Promise<Checkpoints | undefined> {
  return client
    .session(session)
    .agent(agent)
    .checkpoints()
    .catch(() => undefined);
}
