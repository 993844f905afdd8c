import type { ToolCall, ToolResultMessage } from "@ollie/backends";
import { describeError } from "../events/describe-error.js";
import { INTERRUPTED_RESULT } from "../history/history.js";
import { type CallNote, type ToolFailure, traceToolCall } from "../telemetry/tool-span.js";
import { argumentProblems } from "../tools/argument-check.js";
import { argumentsRefused } from "../tools/argument-problems.js";
import type { ToolExecutor, ToolInfo } from "../tools/tool-executor.js";
import { capOutput } from "./output-limit.js";
import type { ReadCache } from "./read-cache.js";

export interface DispatchOptions {
  /** Read-safe calls run at once, at most this many together. */
  maxParallel: number;
  /** What the model sees of one result, in bytes. */
  outputLimitBytes: number;
  /** A call of a tool that sets no timeout of its own is stopped after this long. */
  toolTimeoutMs: number;
}

export const DEFAULT_DISPATCH: Readonly<DispatchOptions> = {
  maxParallel: 8,
  outputLimitBytes: 32 * 1024,
  toolTimeoutMs: 10 * 60_000,
};

export interface Dispatch {
  calls: readonly ToolCall[];
  tools: ReadonlyMap<string, ToolInfo>;
  executor: ToolExecutor;
  options: DispatchOptions;
  /** The turn's signal: when it aborts, running calls are stopped and the rest are not started. */
  signal: AbortSignal;
  onStart(calls: readonly ToolCall[]): void;
  onResult(call: ToolCall, result: ToolResultMessage): void;
  /**
   * A call ended with the result the model will read (refused, failed and interrupted calls too), awaited
   * before the next call starts: where the result is recorded.
   */
  onEnd?(call: ToolCall, result: ToolResultMessage): Promise<void>;
  /** Before a call runs (the preTool hook): a reason to refuse it, or undefined to run it. */
  beforeCall?(call: ToolCall, signal: AbortSignal): Promise<string | undefined>;
  /** After a call ran (the postTool hook): the result the model will see. */
  afterCall?(call: ToolCall, result: ToolResultMessage, signal: AbortSignal): Promise<ToolResultMessage>;
  /** The turn's file-read cache. */
  cache?: ReadCache;
  /** The profile the agent runs, for the calls' metrics. */
  profile?: string;
}

/**
 * Runs a round of calls and returns their results in the model's order. Consecutive read-safe calls run
 * together (bounded); any other call runs alone, after what came before it and before what comes after.
 * Never throws: a tool that throws, times out, or is stopped gives an error result the model reads.
 */
export async function dispatchCalls(d: Dispatch): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  let i = 0;
  while (i < d.calls.length) {
    let batch = 1;
    if (d.tools.get(d.calls[i]!.name)?.readSafe) {
      while (
        batch < d.options.maxParallel &&
        i + batch < d.calls.length &&
        d.tools.get(d.calls[i + batch]!.name)?.readSafe
      )
        batch++;
    }
    const group = d.calls.slice(i, i + batch);
    if (!d.signal.aborted) d.onStart(group);
    const done = await Promise.all(
      group.map(async (call) => {
        const result = await runCall(d, call);
        await d.onEnd?.(call, result);
        return result;
      }),
    );
    for (const [k, result] of done.entries()) {
      results.push(result);
      d.onResult(group[k]!, result);
    }
    i += batch;
  }
  return results;
}

function runCall(d: Dispatch, call: ToolCall): Promise<ToolResultMessage> {
  return traceToolCall(call, d.profile, (note) => runTracedCall(d, call, note));
}

async function runTracedCall(d: Dispatch, call: ToolCall, note: CallNote): Promise<ToolResultMessage> {
  const refusal = d.beforeCall && !d.signal.aborted ? await d.beforeCall(call, d.signal) : undefined;
  if (refusal !== undefined) {
    note.failure = "refused";
    return {
      role: "tool",
      toolCallId: call.id,
      name: call.name,
      content: `${call.name} was not run: ${refusal}`,
      isError: true,
    };
  }
  const info = d.tools.get(call.name);
  const cached = await d.cache?.lookup(call, info);
  if (cached) note.cached = true;
  const result = cached ?? (await executeCall(d, call, note));
  if (!cached) await d.cache?.record(call, info, result);
  return d.afterCall && !d.signal.aborted ? d.afterCall(call, result, d.signal) : result;
}

async function executeCall(d: Dispatch, call: ToolCall, note: CallNote): Promise<ToolResultMessage> {
  const failed = (failure: ToolFailure, content: string) => {
    note.failure = failure;
    return result(content, true);
  };
  const result = (content: string, isError: boolean): ToolResultMessage => ({
    role: "tool",
    toolCallId: call.id,
    name: call.name,
    content: capOutput(content, d.options.outputLimitBytes),
    ...(isError && { isError }),
  });
  if (d.signal.aborted) return failed("interrupted", INTERRUPTED_RESULT);
  if (call.argumentsError !== undefined) {
    return failed(
      "arguments",
      `${call.name} was not run: ${call.argumentsError}. Send the arguments as one JSON object.`,
    );
  }
  const info = d.tools.get(call.name);
  const problems =
    info && !info.checksArguments ? argumentProblems(info.parameters, call.arguments) : undefined;
  if (problems !== undefined) return failed("arguments", argumentsRefused(call.name, problems));
  const timeoutMs = info?.timeoutMs ?? d.options.toolTimeoutMs;
  const controller = new AbortController();
  const stop = () => controller.abort(d.signal.reason);
  d.signal.addEventListener("abort", stop, { once: true });
  const timer = setTimeout(() => controller.abort(new ToolTimeoutError(call.name, timeoutMs)), timeoutMs);
  // A tool that ignores its signal must not hold the turn: stop waiting for it when the signal fires.
  const stopped = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  const running = (async () => d.executor.call(call.name, call.arguments, controller.signal))();
  // Once the race is lost, a late failure of the call must not surface as an unhandled rejection.
  running.catch(() => {});
  try {
    const out = await Promise.race([running, stopped]);
    return result(out.output, out.isError === true);
  } catch (error) {
    if (d.signal.aborted) return failed("interrupted", INTERRUPTED_RESULT);
    if (error instanceof ToolTimeoutError) return failed("timeout", error.message);
    return failed("tool_error", `${call.name} failed: ${describeError(error)}`);
  } finally {
    clearTimeout(timer);
    d.signal.removeEventListener("abort", stop);
  }
}

/** A call that ran longer than its tool's timeout. */
export class ToolTimeoutError extends Error {
  override readonly name = "ToolTimeoutError";
  constructor(
    readonly tool: string,
    readonly timeoutMs: number,
  ) {
    super(`${tool} was stopped after ${timeoutMs / 1000} s without finishing`);
  }
}
