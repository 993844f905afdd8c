import type { Message, ToolResultMessage } from "@ollie/backends";

/** The result given to a call that was stopped before it returned: an interrupt, a close, a timeout of the turn. */
export const INTERRUPTED_RESULT =
  "[interrupted: this call was stopped before it returned. It may have had side effects — check before repeating it.]";

/** The result given, when a session is restored, to a call that was running when its process died. */
export const RESTART_RESULT =
  "[interrupted by a restart: the process running this call stopped before its result was recorded. It may have had side effects — check before repeating it.]";

/** The reply given to a prompt whose turn a crash or a restart cut off before the model answered. */
export const INTERRUPTED_TURN =
  "[interrupted: this turn was cut off by a restart before it was answered. Ask again if it still matters.]";

/** How `answerUnanswered` answers what a history left unanswered. */
export interface AnswerOptions {
  /**
   * The last turn was cut off (see PersistedSession.turnRunning): unless the history ends with the model's
   * reply (an assistant message without calls), INTERRUPTED_TURN is added after it, once.
   */
  cutOff?: boolean;
  /** The result each call left without one gets: RESTART_RESULT unless given. */
  callResult?: string;
}

/**
 * A history as a restored agent needs it: every tool call left without a result (the process died
 * mid-round) gets `callResult`, placed after the results its round did get, so the next request is valid;
 * with `cutOff`, a last turn left without the model's reply gets INTERRUPTED_TURN. Returns the messages and
 * how many answers were added.
 */
export function answerUnanswered(
  messages: readonly Message[],
  options: AnswerOptions = {},
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
        content: options.callResult ?? RESTART_RESULT,
        isError: true,
      });
      added++;
    }
  }
  const last = out.at(-1);
  if (options.cutOff && last && !(last.role === "assistant" && !last.toolCalls?.length)) {
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
