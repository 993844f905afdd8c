import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ToolCallRecord, ToolResultRecord } from "@ollie/client";
import { resultContent, toolCallOf } from "./tool-calls.js";

/**
 * The tool calls of a session as the editor sees them: `tool_call` (pending) when the model asks, an
 * update to `in_progress` when the agent's state says it runs, then `completed` or `failed` with what it
 * returned. Each status is said once, in that order.
 */
export class ToolTracker {
  private readonly calls = new Map<string, { call: ToolCallRecord; running: boolean }>();

  constructor(private readonly cwd: () => string) {}

  asked(call: ToolCallRecord): SessionUpdate {
    this.calls.set(call.id, { call, running: false });
    return { sessionUpdate: "tool_call", ...toolCallOf(call, this.cwd()) };
  }

  /** The agent runs the tools `names`: the first call of each name not yet running is now in progress. */
  running(names: readonly string[]): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    for (const name of names) {
      const entry = [...this.calls.values()].find((c) => c.call.name === name && !c.running);
      if (!entry) continue;
      entry.running = true;
      updates.push({ sessionUpdate: "tool_call_update", toolCallId: entry.call.id, status: "in_progress" });
    }
    return updates;
  }

  finished(call: ToolCallRecord, result: ToolResultRecord): SessionUpdate {
    this.calls.delete(call.id);
    return {
      sessionUpdate: "tool_call_update",
      toolCallId: call.id,
      status: result.isError ? "failed" : "completed",
      content: resultContent(call, result, this.cwd()),
      rawOutput: { content: result.content, ...(result.isError && { isError: true }) },
    };
  }

  /** The call of `name` asked last and not finished: the one a bypass request comes from. */
  latest(name: string): ToolCallRecord | undefined {
    return [...this.calls.values()].reverse().find((c) => c.call.name === name)?.call;
  }
}
