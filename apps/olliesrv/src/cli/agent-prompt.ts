import type { Delivery } from "./batch-sender.js";
import type { SessionClient } from "./session-client.js";

/**
 * Writes `text` to the agent's `prompt` (`agent` is `session/ID/agent/NAME`) and resolves once the agent has
 * taken it, with its number; `ended` settles when that prompt's turn has ended (a blocking read of
 * `prompts/N`), whatever else is prompted meanwhile.
 */
export async function submitPrompt(client: SessionClient, agent: string, text: string): Promise<Delivery> {
  const ticket = await client.submit(agent, text);
  return { ticket, ended: client.read(`${agent}/prompts/${ticket}`) };
}
