import type { AgentEvent } from "@ollie/agent-core";
import type { ToolCall } from "@ollie/backends";
import { oneLine } from "../one-line.js";

/** How much of a tool call's first argument `activity` shows. */
const ARG_CHARS = 120;

/**
 * What an agent is doing now, as its `activity` file says it: the state's word, the tools running and the
 * first argument of the first of them, when the state began and when the running turn began. It follows the
 * agent's events, so a reader (`ollie sh`'s status line, `ollie top`) needs one read, not a parse of `chat`.
 */
export class Activity {
  private state = "idle";
  private tools: string[] = [];
  private arg = "";
  private since = new Date();
  private turnStarted: Date | undefined;
  /** Calls announced by the model and not yet started, in order: the state names them as they start. */
  private waiting: ToolCall[] = [];

  event(e: AgentEvent): void {
    switch (e.type) {
      case "user":
        if (e.from === "user") this.turnStarted ??= new Date();
        break;
      case "call":
        this.waiting.push(e.call);
        break;
      case "state":
        this.enter(e.state);
        break;
      case "turn":
        this.turnStarted = undefined;
        this.waiting = [];
        break;
    }
  }

  /** The file's text: `key=value` lines, always the same keys in the same order. */
  text(): string {
    return [
      `state=${this.state}`,
      `tool=${this.tools.join(",")}`,
      `arg=${this.arg}`,
      `since=${this.since.toISOString()}`,
      `turn_started=${this.turnStarted?.toISOString() ?? ""}`,
      "",
    ].join("\n");
  }

  private enter(state: string): void {
    const calling = /^calling: (.*)$/.exec(state);
    this.state = calling ? "calling" : state;
    this.since = new Date();
    // A turn is running from its first step on: the preTurn hook runs before the prompt is in the history.
    if (state !== "idle") this.turnStarted ??= this.since;
    this.tools = calling ? calling[1]!.split(", ") : [];
    this.arg = "";
    // The calls of a group start in the order the model made them; take them off the waiting list.
    const started = this.tools.map((name) => {
      const at = this.waiting.findIndex((c) => c.name === name);
      return at < 0 ? undefined : this.waiting.splice(at, 1)[0];
    });
    if (started[0]) this.arg = firstArgument(started[0]);
  }
}

/** A call's first argument, as one line of at most ARG_CHARS characters. */
export function firstArgument(call: ToolCall): string {
  const args: unknown = call.arguments;
  const first =
    args !== null && typeof args === "object" && !Array.isArray(args) ? Object.values(args)[0] : args;
  if (first === undefined) return "";
  // Control characters (newlines above all) would break the file's one-value-a-line form.
  return oneLine(typeof first === "string" ? first : JSON.stringify(first), ARG_CHARS);
}
