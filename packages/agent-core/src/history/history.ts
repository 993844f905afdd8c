import type { Message, ToolResultMessage } from "@ollie/backends";

/** The result given to a tool call that never got one: a crash, a kill, an interrupt. */
export const INTERRUPTED_RESULT =
  "[interrupted: this call was stopped before it returned. It may have had side effects — check before repeating it.]";

/** The reply given to a prompt whose turn a crash or a restart cut off before the model answered. */
export const INTERRUPTED_TURN =
  "[interrupted: this turn was cut off by a restart before it was answered. Ask again if it still matters.]";

/**
 * The conversation, as the model sees it after the system preamble: a flat list that grows until it is
 * compacted. Appends are O(1); nothing copies the whole list per message.
 */
export class History {
  private list: Message[];

  constructor(messages: readonly Message[] = []) {
    this.list = [...messages];
  }

  get messages(): readonly Message[] {
    return this.list;
  }

  get length(): number {
    return this.list.length;
  }

  append(...messages: Message[]): void {
    for (const m of messages) this.list.push(m);
  }

  /** Replaces the message at `index` (collapsing a tool result). */
  set(index: number, message: Message): void {
    if (index < 0 || index >= this.list.length)
      throw new RangeError(`no message ${index} in a history of ${this.list.length}`);
    this.list[index] = message;
  }

  /** Replaces everything (compaction, agent switching). */
  replace(messages: readonly Message[]): void {
    this.list = [...messages];
  }

  /**
   * Gives every tool call a result, so the next request is valid: a call left without one (the process died
   * mid-round) gets INTERRUPTED_RESULT, placed after the results its round did get. Returns how many were
   * added.
   */
  /**
   * Answers a prompt left without a reply (the turn began, then the process died) with INTERRUPTED_TURN,
   * so that the history still alternates and says what happened. True if it did.
   */
  repairUnansweredPrompt(): boolean {
    if (this.list.at(-1)?.role !== "user") return false;
    this.list = [...this.list, { role: "assistant", content: INTERRUPTED_TURN }];
    return true;
  }

  repairUnansweredCalls(): number {
    const out: Message[] = [];
    let added = 0;
    for (let i = 0; i < this.list.length; i++) {
      const m = this.list[i]!;
      out.push(m);
      if (m.role !== "assistant" || !m.toolCalls?.length) continue;
      const answered = new Set<string>();
      while (i + 1 < this.list.length && this.list[i + 1]!.role === "tool") {
        const result = this.list[++i] as ToolResultMessage;
        answered.add(result.toolCallId);
        out.push(result);
      }
      for (const call of m.toolCalls) {
        if (answered.has(call.id)) continue;
        out.push({
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: INTERRUPTED_RESULT,
          isError: true,
        });
        added++;
      }
    }
    if (added > 0) this.list = out;
    return added;
  }
}
