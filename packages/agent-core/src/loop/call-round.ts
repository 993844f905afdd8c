import type { ToolCall, ToolResultMessage } from "@ollie/backends";
import { hookNote } from "../history/nudge.js";
import type { Runtime } from "../runtime/runtime.js";
import { dispatchCalls } from "./dispatch.js";
import type { ReadCache } from "./read-cache.js";
import type { TurnContext } from "./turn-context.js";

/**
 * Runs a round of calls (read-safe ones together), each through its preTool hook (which may refuse it)
 * and its postTool hook (which may replace or annotate the result); each result is recorded as its call ends,
 * and reported as they come.
 */
export function runCallRound(
  t: TurnContext,
  runtime: Runtime,
  calls: readonly ToolCall[],
  cache: ReadCache,
  signal: AbortSignal,
): Promise<ToolResultMessage[]> {
  return dispatchCalls({
    calls,
    tools: runtime.toolInfo,
    executor: runtime.tools,
    options: t.dispatch,
    signal,
    onStart: (group) => t.setState(`calling: ${group.map((c) => c.name).join(", ")}`),
    onResult: (call, result) => t.emit({ type: "tool", call, result }),
    onEnd: (_call, result) => t.recordResult(result),
    cache,
    ...(t.profile !== undefined && { profile: t.profile }),
    beforeCall: async (call, callSignal) => {
      const pre = await t.hook(
        "preTool",
        { tool: call.name, call_id: call.id, args: call.arguments },
        callSignal,
      );
      return pre.action === "block" ? pre.output : undefined;
    },
    afterCall: async (call, result, callSignal) => {
      const post = await t.hook(
        "postTool",
        {
          tool: call.name,
          call_id: call.id,
          args: call.arguments,
          result: result.content,
          is_error: result.isError === true,
        },
        callSignal,
      );
      if (post.action === "block") return { ...result, content: post.output };
      return post.output
        ? { ...result, content: `${result.content}\n\n${hookNote("postTool", post.output)}` }
        : result;
    },
  });
}

/**
 * The calls made after the step limit's last warning: none is run, and each gets a result saying so, so the
 * history stays a valid request for every provider.
 */
export function refuseCalls(t: TurnContext, calls: readonly ToolCall[], steps: number): void {
  const refused = calls.map(
    (call): ToolResultMessage => ({
      role: "tool",
      toolCallId: call.id,
      name: call.name,
      content: `${call.name} was not run: this turn has used all ${steps} of its steps, and it ends here.`,
      isError: true,
    }),
  );
  t.history.append(...refused);
  for (const [i, call] of calls.entries()) t.emit({ type: "tool", call, result: refused[i]! });
}
