import type { MockReply, RecordedRequest } from "@ollie/backends/testing";

/** What each program is asked, and what it must print: the answer, streamed, built from its tool's result. */
export const TEXT = "the quick brown fox jumps";
export const answer = (count: string) => `There are ${count} words in it.`;
export const EXPECTED = answer("5");

interface ChatBody {
  messages: Array<{ role: string; content?: unknown }>;
}

/**
 * The mock model: asked a question, it calls `word_count` on the text; given the tool's result, it answers
 * with the number the tool returned (so a program whose tool did not run, or whose result did not reach the
 * model, prints something else), in small chunks.
 */
export function wordCountModel(request: RecordedRequest): MockReply {
  const last = (request.body as ChatBody).messages.at(-1);
  if (last?.role !== "tool") return { toolCalls: [{ name: "word_count", arguments: { text: TEXT } }] };
  const said = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
  return { text: answer(said.match(/\d+/)?.[0] ?? "no"), chunkSize: 4 };
}
