import type { Agent, ToolCallRecord, ToolResultRecord } from "@ollie/client";
import type { Palette } from "./colour.js";

/** A tool call that returned, as its `tool` event told it. */
interface Returned {
  call: ToolCallRecord;
  result: ToolResultRecord;
}

/**
 * The last tool result of an agent, whole: the chat shows a result as its first line (`← shell: … (40
 * lines)`), and `/last` or Ctrl-O in `ollie sh` shows all of it. Followed from the agent's `tool` events
 * from the moment `follow` resolves, for as long as sh runs.
 */
export class LastResult {
  private last: Returned | undefined;
  private readonly watching = new AbortController();
  private followed: Promise<void> = Promise.resolve();

  static async follow(agent: Agent): Promise<LastResult> {
    const last = new LastResult();
    const events = await agent.events({ types: ["tool"], signal: last.watching.signal });
    // It ends when stopped, or with the connection or the session: there is nothing more to keep then.
    last.followed = (async () => {
      for await (const e of events) if (e.kind === "agent" && e.type === "tool") last.last = e;
    })().catch(() => {});
    return last;
  }

  /** The last result, whole, under its call; or a line saying there is none yet. */
  text(p: Palette): string {
    const last = this.last;
    if (!last) return p.dim("no tool has returned yet in this sh\n");
    const { call, result } = last;
    const failed = result.isError ? " failed" : "";
    const head = p.cyan(`→ ${call.name} ${JSON.stringify(call.arguments ?? {})}`);
    const body = result.content.endsWith("\n") ? result.content : `${result.content}\n`;
    return `${head}\n${p.dim(`← ${call.name}${failed}, all of it:`)}\n${body}`;
  }

  async stop(): Promise<void> {
    this.watching.abort();
    await this.followed;
  }
}
