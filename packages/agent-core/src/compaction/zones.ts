import type { Message } from "@ollie/backends";
import { collapse, tierOf } from "../history/tiers.js";
import type { ToolInfo } from "../tools/tool-executor.js";

/**
 * Where the hot zone starts: `hot` messages from the end, moved back so it never begins with a tool result
 * (the call it answers comes along). 0 when everything is hot.
 */
export function hotStart(messages: readonly Message[], hot: number): number {
  let start = Math.max(0, messages.length - hot);
  while (start > 0 && messages[start]!.role === "tool") start--;
  return start;
}

/** Warm-tier results as their one line: what a compaction does to them wherever they are. */
export function collapseWarm(messages: readonly Message[], tools: ReadonlyMap<string, ToolInfo>): Message[] {
  return messages.map((m) => (m.role === "tool" && tierOf(m, tools) === "warm" ? collapse(m) : m));
}

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;

/** The older part of a conversation as plain text for the summarizing model: calls and results inline. */
export function transcript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
        break;
      case "user":
        lines.push(`USER: ${clip(m.content, 4000)}`);
        break;
      case "assistant": {
        if (m.content) lines.push(`ASSISTANT: ${clip(m.content, 4000)}`);
        for (const c of m.toolCalls ?? [])
          lines.push(`ASSISTANT CALLED ${c.name}(${clip(JSON.stringify(c.arguments), 500)})`);
        break;
      }
      case "tool":
        lines.push(`${m.name} ${m.isError ? "FAILED" : "RETURNED"}: ${clip(m.content, 2000)}`);
        break;
    }
  }
  return lines.join("\n\n");
}
