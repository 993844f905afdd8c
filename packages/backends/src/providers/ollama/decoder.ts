import { type ErrorSource, TransientError } from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import type { WireDecoder } from "../../stream/event-stream.js";
import { parseFrame } from "../../stream/parse-frame.js";
import { parseArguments, ReplyBuilder } from "../../stream/reply-builder.js";
import type { Usage } from "../../types.js";

interface Line {
  model?: string;
  error?: unknown;
  message?: {
    content?: string;
    thinking?: string;
    tool_calls?: Array<{
      id?: string;
      function?: { name?: string; arguments?: Record<string, unknown> | string };
    }>;
  };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
}

/**
 * Ollama /api/chat NDJSON: one object per line until `"done": true`. Each tool call arrives whole; calls are
 * appended in order (never merged by index). An `error` line inside the stream is thrown typed.
 */
export class OllamaDecoder implements WireDecoder<string> {
  readonly builder = new ReplyBuilder();

  /** `estimatePrompt` counts the request's prompt for when Ollama does not (a prompt it had cached). */
  constructor(
    private readonly source: ErrorSource,
    private readonly estimatePrompt: () => number,
  ) {}

  accept(text: string): void {
    const line = parseFrame<Line>(this.source, text, "stream line");
    if (line.error !== undefined) throw classifyError(this.source, undefined, errorFacts(line, text));
    const m = line.message;
    if (m?.thinking) this.builder.reasoningDelta(m.thinking);
    if (m?.content) this.builder.text(m.content);
    for (const call of m?.tool_calls ?? []) {
      const index = this.builder.callCount;
      const id = call.id || `call_${index}`;
      const name = call.function?.name ?? "";
      const args = call.function?.arguments;
      this.builder.toolCallStart(index, id, name);
      this.builder.toolCall(index, {
        id,
        name,
        ...(typeof args === "string" ? parseArguments(args) : { arguments: args ?? {} }),
      });
    }
    if (line.done) {
      this.builder.identify(line.model, undefined);
      this.builder.setUsage(this.usage(line));
      const raw = line.done_reason;
      const reason =
        raw === "length"
          ? "length"
          : this.builder.callCount > 0
            ? "tool_use"
            : raw === "stop" || raw === undefined
              ? "stop"
              : "other";
      this.builder.done(reason, raw);
    }
  }

  /**
   * Ollama counts only the prompt tokens it evaluated: with the prompt's start in its cache the count is
   * missing or covers only the new end. Then the estimate stands for the prompt, the rest of it as cached.
   */
  private usage(line: Line): Usage {
    const evaluated = line.prompt_eval_count;
    const outputTokens = line.eval_count ?? 0;
    const estimate = this.estimatePrompt();
    // The estimate errs high, so a count under half of it is a part, not the whole.
    if (evaluated !== undefined && evaluated >= estimate / 2)
      return { inputTokens: evaluated, outputTokens, cachedInputTokens: 0, cacheCreationTokens: 0 };
    return {
      inputTokens: estimate,
      outputTokens,
      cachedInputTokens: estimate - (evaluated ?? 0),
      cacheCreationTokens: 0,
      inputEstimated: true,
    };
  }

  end(): void {
    if (!this.builder.isDone) {
      throw new TransientError({
        ...this.source,
        providerMessage: 'the stream ended before its "done" line',
      });
    }
  }
}
