import type { Message, Tool } from "../types.js";

/** Tokens a message costs beyond its text: role markers and separators. */
const PER_MESSAGE = 4;

/**
 * A rough token count for text: a quarter of its UTF-8 bytes, which is near what BPE tokenizers give for
 * English and code and errs high for other scripts. Used only where the provider has not counted.
 */
export function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}

export function estimateMessageTokens(m: Message): number {
  let n = PER_MESSAGE + estimateTextTokens(m.content);
  if (m.role === "assistant") {
    for (const c of m.toolCalls ?? [])
      n += estimateTextTokens(c.name) + estimateTextTokens(JSON.stringify(c.arguments));
    for (const r of m.reasoning ?? []) n += estimateTextTokens(r.text);
  }
  return n;
}

export function estimateTokens(messages: readonly Message[], tools: readonly Tool[] = []): number {
  let n = 0;
  for (const m of messages) n += estimateMessageTokens(m);
  for (const t of tools) n += estimateTextTokens(JSON.stringify(t));
  return n;
}
