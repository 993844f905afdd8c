import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { HistoryMessage, ToolCallRecord } from "@ollie/client";
import type { ToolTracker } from "./tool-tracker.js";

const text = (t: string) => ({ type: "text" as const, text: t });

/**
 * A session's history as the updates that tell it again (session/load): each prompt as a user message,
 * each reply's reasoning and text, each call it made and how that call ended. The system prompt is not
 * shown.
 */
export function replayUpdates(history: readonly HistoryMessage[], tools: ToolTracker): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const calls = new Map<string, ToolCallRecord>();
  for (const m of history) {
    switch (m.role) {
      case "user":
        updates.push({ sessionUpdate: "user_message_chunk", content: text(m.content) });
        break;
      case "assistant":
        for (const r of m.reasoning ?? [])
          if (r.text !== "") updates.push({ sessionUpdate: "agent_thought_chunk", content: text(r.text) });
        if (m.content !== "")
          updates.push({ sessionUpdate: "agent_message_chunk", content: text(m.content) });
        for (const call of m.toolCalls ?? []) {
          calls.set(call.id, call);
          updates.push(tools.asked(call));
        }
        break;
      case "tool": {
        const call = calls.get(m.toolCallId) ?? { id: m.toolCallId, name: m.name, arguments: {} };
        updates.push(tools.finished(call, m));
        break;
      }
    }
  }
  return updates;
}
