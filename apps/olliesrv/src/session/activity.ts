import type { AgentEvent } from "@ollie/agent-core";
import type { ToolCall } from "@ollie/backends";
import { oneLine } from "../one-line.js";

/** How much of a tool call's first argument `activity` shows. */
const ARG_CHARS = 120;

/**
 * What an agent is doing now, as its `activity` file says it: the state's word, the tools running and the
 * first argument of the first of them (or the hook running), when the state began and when the running turn
 * (or what runs outside one) began. It follows the agent's events, so a reader (`ollie sh`'s status line,
 * `ollie top`) needs one read, not a parse of `chat`.
 */
export class Activity {
  private state = "idle";
  private tools: string[] = [];
  private arg = "";
  private since = new Date();
  private turnStarted: Date | undefined;
  /** Calls announced by the model and not yet started, in order: the state names them as they start. */
  private waiting: ToolCall[] = [];
  /** The group of calls last started (`calling: …`), to show again when a preTool or postTool hook ends. */
  private group: { state: string; tools: string[]; arg: string } | undefined;

  event(e: AgentEvent): void {
    switch (e.type) {
      case "call":
        this.waiting.push(e.call);
        break;
      case "state":
        this.enter(e.state);
        break;
      case "turn":
        this.turnStarted = undefined;
        this.waiting = [];
        this.group = undefined;
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
    const fromHook = this.state === "hook";
    const [, word = state, what] = /^(calling|hook): (.*)$/.exec(state) ?? [];
    this.state = word;
    this.since = new Date();
    // The agent leaves idle as a turn starts (before its preTurn hook), and is idle again once it has ended.
    if (state === "idle") this.turnStarted = undefined;
    else this.turnStarted ??= this.since;
    this.tools = [];
    this.arg = "";
    if (word === "hook") {
      // The hook's event, in the place of the tools (`hook` `preTurn`).
      this.tools = [what!];
      return;
    }
    if (word !== "calling") return;
    if (fromHook && this.group?.state === state) {
      // A call's own hook ended: its group is still the one running.
      this.tools = this.group.tools;
      this.arg = this.group.arg;
      return;
    }
    this.tools = what!.split(", ");
    // The calls of a group start in the order the model made them; take them off the waiting list.
    const started = this.tools.map((name) => {
      const at = this.waiting.findIndex((c) => c.name === name);
      return at < 0 ? undefined : this.waiting.splice(at, 1)[0];
    });
    if (started[0]) this.arg = firstArgument(started[0]);
    this.group = { state, tools: this.tools, arg: this.arg };
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
