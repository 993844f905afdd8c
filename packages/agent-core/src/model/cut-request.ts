import { estimateTextTokens, type Usage } from "@ollie/backends";

/**
 * What a request the turn's signal cut off had cost so far. A provider bills a request it stopped streaming
 * (the prompt it read and what it generated), but reports usage only at the end of the stream, so what
 * it did report is kept and the rest is estimated.
 */
export interface CutRequest {
  /** The usage the stream reported before the cut, if it reported any. */
  reported?: Usage;
  /** An estimate of what it generated: the text, reasoning and call arguments it streamed. */
  outputTokens: number;
}

/** Keeps what one attempt streams that a cut-off request is charged for. */
export class AttemptTally {
  reported: Usage | undefined;
  private otherOutput = "";

  /** Reasoning or call arguments streamed (text is kept by the attempt's echo). */
  output(delta: string): void {
    this.otherOutput += delta;
  }

  cut(text: string): CutRequest {
    return {
      ...(this.reported && { reported: this.reported }),
      outputTokens: estimateTextTokens(text) + estimateTextTokens(this.otherOutput),
    };
  }
}

/**
 * The usage to record for a cut request: what the provider reported, else `inputTokens` (the context
 * meter's size of the request) and the output estimate, both marked as estimates.
 */
export function cutRequestUsage(cut: CutRequest, inputTokens: number): Usage {
  if (cut.reported) return cut.reported;
  return {
    inputTokens,
    outputTokens: cut.outputTokens,
    cachedInputTokens: 0,
    cacheCreationTokens: 0,
    inputEstimated: true,
    outputEstimated: true,
  };
}
