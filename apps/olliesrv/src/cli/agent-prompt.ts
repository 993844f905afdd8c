import type { Agent } from "@ollie/client";
import type { Delivery } from "./batch-sender.js";

/**
 * Prompts `agent` with `text` and resolves once it has taken the prompt, with its number; `ended` settles
 * when that prompt's turn has ended, whatever else is prompted meanwhile.
 */
export async function submitPrompt(agent: Agent, text: string): Promise<Delivery> {
  const prompt = await agent.prompt(text);
  return { ticket: String(prompt.number), ended: prompt.ended };
}
