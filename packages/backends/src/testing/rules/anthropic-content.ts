import { type JsonObject, objectsOf } from "./request-check.js";

/** A message's content as blocks, as Anthropic reads it: a string is one text block. */
export function blocksOf(message: JsonObject | undefined): JsonObject[] {
  const content = message?.content;
  return typeof content === "string" ? [{ type: "text", text: content }] : objectsOf(content);
}

/** The ids of the `tool_use` blocks of an assistant message (none for any other message). */
export function toolUseIds(message: JsonObject | undefined): string[] {
  if (message?.role !== "assistant") return [];
  return blocksOf(message).flatMap((b) => (b.type === "tool_use" ? [String(b.id)] : []));
}

/** The `tool_result` blocks of a user message, with their positions in its content. */
export function toolResults(message: JsonObject | undefined): Array<{ id: string; at: number }> {
  if (message?.role !== "user") return [];
  return blocksOf(message).flatMap((b, at) =>
    b.type === "tool_result" ? [{ id: String(b.tool_use_id), at }] : [],
  );
}
