import { ReplyFormatError } from "../errors.js";
import type { ToolCallRecord } from "../events/event-types.js";

/**
 * One message of an agent's history (its `context` file), as the model reads it: the system prompt, a
 * prompt (the person's, another agent's, or the loop's own notes), a reply with the calls it made, a call's
 * result.
 */
export type HistoryMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCallRecord[]; reasoning?: Array<{ text: string }> }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean };

const ROLES = new Set(["system", "user", "assistant", "tool"]);

export function parseHistory(text: string, path: string): HistoryMessage[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ReplyFormatError(path, text, "not JSON");
  }
  const fits = (m: unknown) =>
    typeof m === "object" &&
    m !== null &&
    ROLES.has((m as { role?: unknown }).role as string) &&
    typeof (m as { content?: unknown }).content === "string";
  if (!Array.isArray(parsed) || !parsed.every(fits))
    throw new ReplyFormatError(path, text, "not a list of messages");
  return parsed as HistoryMessage[];
}
