import type { ToolResultMessage } from "@ollie/backends";
import type { ToolInfo } from "../tools/tool-executor.js";
import type { History } from "./history.js";

const MARK = "[collapsed: ";

/** Whether a result was already collapsed to its one line. */
export const isCollapsed = (result: ToolResultMessage) => result.content.startsWith(MARK);

/** A result as one line: which tool, how big it was, and how it began. */
export function collapse(result: ToolResultMessage): ToolResultMessage {
  if (isCollapsed(result)) return result;
  const bytes = Buffer.byteLength(result.content, "utf8");
  const first = (result.content.split("\n").find((l) => l.trim() !== "") ?? "").trim();
  const start = first.length > 120 ? `${first.slice(0, 119)}…` : first;
  const content = `${MARK}${result.name} ${result.isError ? "failed" : "returned"} ${bytes.toLocaleString("en")} bytes, beginning "${start}"]`;
  return { ...result, content };
}

export const tierOf = (result: ToolResultMessage, tools: ReadonlyMap<string, ToolInfo>) =>
  tools.get(result.name)?.tier ?? "hot";

/**
 * Collapses the results of cold-tier tools among messages[from, to): results the model has already read.
 * A cold result is collapsed once the model has answered after it, not when it is appended — a model must
 * be able to read the file it asked for, once. Returns where the next scan can start.
 */
export function collapseCold(
  history: History,
  tools: ReadonlyMap<string, ToolInfo>,
  from: number,
  to: number,
): number {
  const messages = history.messages;
  for (let i = from; i < to; i++) {
    const m = messages[i]!;
    if (m.role === "tool" && tierOf(m, tools) === "cold" && !isCollapsed(m)) history.set(i, collapse(m));
  }
  return to;
}
