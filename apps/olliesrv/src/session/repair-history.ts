import { INTERRUPTED_RESULT, INTERRUPTED_TURN } from "@ollie/agent-core";
import type { Message, ToolResultMessage } from "@ollie/backends";
import type { SessionFile } from "./session-file.js";

/**
 * A history as the agent restored from it will have it, and how many answers that took: a tool call left
 * without a result (olliesrv stopped mid-round) gets INTERRUPTED_RESULT after the results its round did get,
 * and a prompt left without a reply (the turn was cut off) gets INTERRUPTED_TURN — the repair
 * `Agent.restore` makes, made when the session is read so that the file says it at once.
 */
export function repairHistory(messages: readonly Message[]): { messages: Message[]; added: number } {
  const out: Message[] = [];
  let added = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    out.push(m);
    if (m.role !== "assistant" || !m.toolCalls?.length) continue;
    const answered = new Set<string>();
    while (i + 1 < messages.length && messages[i + 1]!.role === "tool") {
      const result = messages[++i] as ToolResultMessage;
      answered.add(result.toolCallId);
      out.push(result);
    }
    for (const call of m.toolCalls) {
      if (answered.has(call.id)) continue;
      out.push({
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: INTERRUPTED_RESULT,
        isError: true,
      });
      added++;
    }
  }
  if (out.at(-1)?.role === "user") {
    out.push({ role: "assistant", content: INTERRUPTED_TURN });
    added++;
  }
  return { messages: out, added };
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
