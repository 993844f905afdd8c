import { answerUnanswered } from "@ollie/agent-core";
import type { Message } from "@ollie/backends";
import type { SessionFile } from "./session-file.js";

/**
 * A history as the agent restored from it will have it, and how many answers that took: a tool call left
 * without a result (olliesrv stopped mid-round) gets INTERRUPTED_RESULT after the results its round did get,
 * and a prompt left without a reply (the turn was cut off) gets INTERRUPTED_TURN — the repair
 * `Agent.restore` makes, made when the session is read so that the file says it at once.
 */
export function repairHistory(messages: readonly Message[]): { messages: Message[]; added: number } {
  return answerUnanswered(messages, { prompts: true });
}

/** Repairs every agent's history in a session file read from disk; returns how many answers were added. */
export function repairSessionFile(file: SessionFile): number {
  let added = 0;
  for (const agent of file.agents) {
    if (!agent.session) continue;
    const repaired = repairHistory(agent.session.messages);
    if (repaired.added === 0) continue;
    agent.session = { ...agent.session, messages: repaired.messages };
    added += repaired.added;
  }
  return added;
}
