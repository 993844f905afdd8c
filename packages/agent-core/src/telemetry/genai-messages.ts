// Messages as the GenAI conventions' content attributes carry them (gen_ai.input.messages,
// gen_ai.output.messages, gen_ai.system_instructions: JSON following their message schemas). Only made when
// the application opted in to capturing contents (captureMessageContent()).
import type { AssistantMessage, Message, StopReason } from "@ollie/backends";
import { truncateContent } from "@ollie/telemetry";

type Part =
  | { type: "text"; content: string }
  | { type: "reasoning"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id: string; response: string };

interface ChatMessage {
  role: "user" | "assistant" | "tool";
  parts: Part[];
  finish_reason?: string;
}

function assistantParts(m: AssistantMessage): Part[] {
  const parts: Part[] = [];
  for (const r of m.reasoning ?? []) if (r.text !== "") parts.push({ type: "reasoning", content: r.text });
  if (m.content !== "") parts.push({ type: "text", content: m.content });
  for (const c of m.toolCalls ?? [])
    parts.push({ type: "tool_call", id: c.id, name: c.name, arguments: c.rawArguments ?? c.arguments });
  return parts;
}

function chatMessage(m: Exclude<Message, { role: "system" }>): ChatMessage {
  switch (m.role) {
    case "user":
      return { role: "user", parts: [{ type: "text", content: m.content }] };
    case "assistant":
      return { role: "assistant", parts: assistantParts(m) };
    case "tool":
      return { role: "tool", parts: [{ type: "tool_call_response", id: m.toolCallId, response: m.content }] };
  }
}

/** The request's system prompt, as gen_ai.system_instructions; undefined when it has none. */
export function systemInstructions(messages: readonly Message[]): string | undefined {
  const parts = messages.flatMap((m) => (m.role === "system" ? [{ type: "text", content: m.content }] : []));
  return parts.length === 0 ? undefined : truncateContent(JSON.stringify(parts));
}

/** The request's conversation (its system prompt apart), as gen_ai.input.messages. */
export function inputMessages(messages: readonly Message[]): string {
  const chat = messages.flatMap((m) => (m.role === "system" ? [] : [chatMessage(m)]));
  return truncateContent(JSON.stringify(chat));
}

/** The reply, as gen_ai.output.messages (the schema's finish reason for a call is `tool_call`). */
export function outputMessages(reply: AssistantMessage, reason: StopReason): string {
  const finish = reason === "tool_use" ? "tool_call" : reason;
  const out: ChatMessage = { role: "assistant", parts: assistantParts(reply), finish_reason: finish };
  return truncateContent(JSON.stringify([out]));
}
