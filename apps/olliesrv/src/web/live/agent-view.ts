import type {
  Agent,
  AgentActivity,
  AgentConfig,
  AgentCost,
  AgentUsage,
  Checkpoints,
  ContextSize,
  OllieClient,
  Outcome,
  QueuedPrompt,
  SessionBudget,
  SessionEntry,
} from "@ollie/client";
import { type Transcript, transcript } from "../markdown/transcript.js";

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
  /** The prompts waiting for the running turn to end. */
  queue: QueuedPrompt[];
}

/** Reads the agent's panels; a file that cannot be read leaves its part empty. */
export async function readAgentView(
  client: OllieClient,
  session: SessionEntry,
  name: string,
): Promise<AgentView> {
  const agent = client.session(session.id).agent(name);
  const none = () => undefined;
  const [cfg, activity, turns, outcome, usage, cost, context, budget, queue] = await Promise.all([
    agent.cfg().catch(none),
    agent.activity().catch(none),
    agent.turns().catch(() => 0),
    agent.outcome().catch(none),
    agent.usage().catch(none),
    agent.cost().catch(none),
    agent.contextSize().catch(none),
    client.session(session.id).budget().catch(none),
    agent.queue().catch(() => []),
  ]);
  return { session, agent: name, cfg, activity, turns, outcome, usage, cost, context, budget, queue };
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

/** How much of a long chat a page is given: the end of it, from a line's start. */
const TRANSCRIPT_BYTES = 512 * 1024;

/** The agent's chat as a page's transcript, and the position its live stream goes on from. */
export async function readTranscript(agent: Agent, signal?: AbortSignal): Promise<Transcript> {
  const whole = Buffer.from(await agent.chatText(signal));
  // Read after the chat: idle now, the chat read ended with the last turn's text whole.
  const finished = (await agent.state(signal).catch(() => undefined)) === "idle";
  let start = Math.max(0, whole.length - TRANSCRIPT_BYTES);
  if (start > 0) start = whole.indexOf(10, start) + 1 || whole.length;
  return transcript(whole.subarray(start).toString("utf8"), start, finished);
}
