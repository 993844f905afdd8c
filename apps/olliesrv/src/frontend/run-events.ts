import type { AgentEventBody, RunEvent } from "@ollie/client";

/**
 * The line `ollie run --json` prints for one of its agent's events, or undefined for those it leaves out:
 * the prompt and the loop's notes entering the history, states, compactions, and the turn's end (which the
 * run's `outcome` line tells).
 */
export function runEventOf(e: AgentEventBody): RunEvent | undefined {
  switch (e.type) {
    case "assistant":
      return { type: "text", delta: e.delta };
    case "reasoning":
      return { type: "reasoning", delta: e.delta };
    case "discard":
      return { type: "discard", text: e.partial };
    case "call":
      return { type: "tool_call", id: e.call.id, name: e.call.name, arguments: e.call.arguments };
    case "tool":
      return {
        type: "tool_result",
        id: e.result.toolCallId,
        name: e.result.name,
        output: e.result.content,
        error: e.result.isError === true,
      };
    case "usage": {
      const r = e.request;
      return {
        type: "usage",
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        cachedInputTokens: r.cachedInputTokens,
        cacheCreationTokens: r.cacheCreationTokens,
        ...(r.reasoningTokens !== undefined && { reasoningTokens: r.reasoningTokens }),
        costUsd: e.costUsd,
        total: e.turn,
      };
    }
    case "error":
      return { type: "error", message: e.message };
    case "retry":
    case "limitretry": {
      const why = e.type === "retry" ? "the request failed" : "rate limited";
      const wait = `${(e.delayMs / 1000).toFixed(1)} s`;
      return notice(`${why}; attempt ${e.attempt + 1} of ${e.maxAttempts} in ${wait}: ${e.message}`);
    }
    case "maxsteps":
      return notice(
        `the turn has used all ${e.steps} of its steps: the model is asked to answer without tools`,
      );
    case "stopreason":
      return notice(e.message);
    case "info":
      return notice(e.message);
    case "note":
      return notice(e.text);
    default:
      return undefined;
  }
}

const notice = (message: string): RunEvent => ({ type: "notice", message });
