import type { Message, ToolResultMessage } from "@ollie/backends";

/** The result given to a tool call that never got one: a crash, a kill, an interrupt. */
export const INTERRUPTED_RESULT =
  "[interrupted: this call was stopped before it returned. It may have had side effects — check before repeating it.]";

/** The reply given to a prompt whose turn a crash or a restart cut off before the model answered. */
export const INTERRUPTED_TURN =
  "[interrupted: this turn was cut off by a restart before it was answered. Ask again if it still matters.]";

/**
 * A history as a restored agent needs it: every tool call left without a result (the process died
 * mid-round) gets INTERRUPTED_RESULT, placed after the results its round did get, so the next request is
 * valid; with `prompts`, a last prompt left without a reply gets INTERRUPTED_TURN. Returns the messages and
 * how many answers were added.
 */
export function answerUnanswered(
  messages: readonly Message[],
  options: { prompts?: boolean } = {},
): { messages: Message[]; added: number } {
  const out: Message[] = [];
  let added = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    out.push(m);
    if (m.role !== "assistant" || !m.toolCalls?.length) continue;
    const answered = new Set<string>();
    while (i + 1 < messages.length && messages[i + 1]!.role === "tool") {
      const result = messages[++i] as ToolResultMessage;
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
  if (options.prompts && out.at(-1)?.role === "user") {
    out.push({ role: "assistant", content: INTERRUPTED_TURN });
    added++;
  }
  return { messages: out, added };
}

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
}
