import type { Message, Tool } from "@ollie/backends";
import { estimateMessageTokens, estimateTokens } from "@ollie/backends";

/** How full the context is: the next request's tokens against the model's window. */
export interface ContextFigures {
  /** Tokens the next request will carry (the provider's last count plus estimates for what came since). */
  tokens: number;
  /** The model's context window. */
  contextLength: number;
  /** tokens / contextLength. */
  fraction: number;
  /** Whether `tokens` is the provider's count (plus a small estimate) rather than an estimate throughout. */
  counted: boolean;
}

/**
 * Tracks the size of the next request. After each reply the provider's own input count is the anchor:
 * that request's messages were exactly what it counted, so only the reply and what followed it need
 * estimating. When the history is replaced (compaction, profile switch) the anchor is dropped and
 * everything is estimated until the next reply.
 */
export class ContextMeter {
  private anchorTokens = 0;
  private anchorMessages: readonly Message[] | undefined;
  private anchorLength = 0;

  /** A request over `messages` (system message included) was counted at `inputTokens`. */
  record(messages: readonly Message[], inputTokens: number): void {
    this.anchorTokens = inputTokens;
    this.anchorMessages = messages;
    this.anchorLength = messages.length;
  }

  /** Forgets the anchor: the messages it counted are gone. */
  reset(): void {
    this.anchorMessages = undefined;
  }

  /** The size of a request over `messages` (system message included). */
  measure(messages: readonly Message[], tools: readonly Tool[]): { tokens: number; counted: boolean } {
    const anchored =
      this.anchorMessages !== undefined &&
      messages.length >= this.anchorLength &&
      messages[this.anchorLength - 1] === this.anchorMessages[this.anchorLength - 1] &&
      messages[0]?.content === this.anchorMessages[0]?.content;
    if (!anchored) return { tokens: estimateTokens(messages, tools), counted: false };
    let tokens = this.anchorTokens;
    for (let i = this.anchorLength; i < messages.length; i++) tokens += estimateMessageTokens(messages[i]!);
    return { tokens, counted: true };
  }
}
