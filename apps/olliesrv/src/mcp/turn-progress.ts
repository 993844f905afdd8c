import type { AgentActivity } from "@ollie/client";
import { doingText } from "../frontend/agent-text.js";
import { echoFilter } from "../frontend/echo-filter.js";
import { oneLine } from "../one-line.js";

/** The characters of a progress message: a glance at what happens, not the text itself. */
const MESSAGE_MAX = 120;

/**
 * What an MCP client is told while a turn runs: each change of the agent's state (thinking, the tool it
 * runs and its first argument) and each line the chat completes (the reply, a tool call, its result, a
 * retry), as a progress notification whose number only grows. The chat's `» PROMPT` block is left out: the
 * client wrote it.
 */
export class TurnProgress {
  private count = 0;
  private last = "";
  /** The chat's line being written: told once it ends. */
  private open = "";
  private readonly dropEcho: (chunk: string) => string;

  constructor(
    prompt: string,
    private readonly notify: (progress: number, message: string) => Promise<void>,
  ) {
    this.dropEcho = echoFilter(prompt);
  }

  /** Text of the chat, as it streams. */
  chunk(text: string): void {
    const lines = (this.open + this.dropEcho(text)).split("\n");
    this.open = lines.pop()!;
    for (const line of lines) this.tell(line);
  }

  /** What the agent does now (after its state changed). */
  update(activity: AgentActivity): void {
    // `thinking`, `calling shell: make`, `hook preTurn`, `compacting`; nothing for idle.
    if (activity.state !== "idle") this.tell(doingText(activity));
  }

  private tell(line: string): void {
    const message = oneLine(line, MESSAGE_MAX);
    if (message === "" || message === this.last) return;
    this.last = message;
    this.count++;
    // A notification that cannot be sent (the client has gone) is no reason to disturb the turn.
    this.notify(this.count, message).catch(() => {});
  }
}
