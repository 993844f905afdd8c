import type { AssistantMessage, Message, Origin, ReasoningBlock, ToolResultMessage } from "../types.js";

/** What a provider accepts back of earlier replies. */
export interface ReplayRules {
  /** Text of only whitespace counts as none (Anthropic refuses whitespace-only text blocks). */
  whitespaceIsEmpty: boolean;
  /** Whether a reasoning block may go back to this provider and model. */
  keepReasoning(block: ReasoningBlock): boolean;
}

/** The result a call gets when the history has none: every provider wants each call answered. */
const MISSING_RESULT = "No result was recorded for this call.";

/** Whether a signed part made by `origin` may go back to `provider`/`model`: only where it was made. */
export function signedHere(origin: Origin | undefined, provider: string, model: string): boolean {
  return origin === undefined || (origin.provider === provider && origin.model === model);
}

const isBlank = (text: string) => text.trim() === "";

function replayable(m: AssistantMessage, rules: ReplayRules): AssistantMessage | undefined {
  const content = rules.whitespaceIsEmpty && isBlank(m.content) ? "" : m.content;
  const calls = m.toolCalls ?? [];
  // A reply with neither text nor calls says nothing, and the APIs refuse an empty turn: it is left out.
  if (content === "" && calls.length === 0) return undefined;
  const reasoning = m.reasoning?.filter((r) => rules.keepReasoning(r)) ?? [];
  const out: AssistantMessage = { role: "assistant", content };
  if (calls.length > 0) out.toolCalls = calls;
  if (reasoning.length > 0) out.reasoning = reasoning;
  return out;
}

/**
 * The history as a provider will accept it: replies that say nothing are left out (turns of the same role
 * then merge in the request body), whitespace-only text is dropped where the provider refuses it (a prompt
 * of only whitespace too), reasoning
 * goes back only where the rules allow, and every call keeps exactly one result right after its reply —
 * a result without its call is dropped, and a call without a result gets MISSING_RESULT as an error.
 * The stored history is not changed.
 */
export function replayHistory(messages: readonly Message[], rules: ReplayRules): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool") continue;
    if (m.role === "user" && rules.whitespaceIsEmpty && isBlank(m.content)) continue;
    if (m.role !== "assistant") {
      out.push(m);
      continue;
    }
    const reply = replayable(m, rules);
    // Results follow their reply; whatever comes before the next other message belongs to it.
    let end = i + 1;
    while (end < messages.length && messages[end]!.role === "tool") end++;
    if (reply === undefined) {
      i = end - 1;
      continue;
    }
    out.push(reply);
    const results = messages.slice(i + 1, end) as ToolResultMessage[];
    for (const call of reply.toolCalls ?? []) {
      const result = results.find((r) => r.toolCallId === call.id);
      out.push(
        result ?? {
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: MISSING_RESULT,
          isError: true,
        },
      );
    }
    i = end - 1;
  }
  return out;
}

/**
 * The reply whose calls the request is answering, when the request ends in a tool loop (its last message
 * is a tool result): Anthropic wants that reply to start with its thinking when thinking is on.
 */
export function openToolLoop(messages: readonly Message[]): AssistantMessage | undefined {
  if (messages.at(-1)?.role !== "tool") return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant") return m;
    if (m.role !== "tool") return undefined;
  }
  return undefined;
}
