import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { ATTR, errorTypeOf, OPERATION, ollieTracer } from "@ollie/telemetry";
import { AppendBuffer } from "@ollie/virtfs";
import { context, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { RunTrace } from "../exec/launch-span.js";
import { OutputBuffer } from "../exec/output-buffer.js";
import type { ToolOutcome, ToolRun } from "../exec/run-tool.js";
import { TRACER_SCOPE } from "../tracing/call-attributes.js";
import type { McpToolEntry } from "./links-survey.js";
import type { McpLink } from "./mcp-link.js";
import { mcpResultText } from "./mcp-result.js";

export interface McpCallRunOptions {
  maxOutputBytes?: number;
  /** Cancels the call (MCP's `notifications/cancelled`). */
  signal?: AbortSignal;
  /** The call's trace: the request's span is a child of its span. */
  trace?: RunTrace;
}

const progressLine = (p: Progress) =>
  `[progress ${p.progress}${p.total === undefined ? "" : `/${p.total}`}${p.message ? `: ${p.message}` : ""}]\n`;

/**
 * A call of an MCP server's tool, shaped like a tool process so proc/ shows it: its progress notifications
 * and then its result go to the output stream; `kill`, the signal and the tool's timeout cancel it. An
 * `isError` result ends it with status 1, a result ends it with 0, and a call that got no result (the
 * server died, or refused the request) ends with `failure`. The request is traced as MCP's conventions say
 * a client's is: a CLIENT span `tools/call {tool}`, the tool named as its server names it.
 */
export function startMcpCall(
  entry: McpToolEntry,
  /** The server to call: the shared one, or the agent's own. */
  link: McpLink,
  args: Record<string, unknown>,
  options: McpCallRunOptions,
): ToolRun {
  const limit = options.maxOutputBytes ?? 1024 * 1024;
  const stream = new AppendBuffer({ retain: limit });
  const startedAt = new Date();
  const killed = new AbortController();
  const timer = AbortSignal.timeout(entry.meta.timeoutMs);
  const signal = AbortSignal.any([killed.signal, timer, ...(options.signal ? [options.signal] : [])]);
  const outcome = (fields: Partial<ToolOutcome>): ToolOutcome => ({
    exitCode: null,
    signal: null,
    output: "",
    stderr: "",
    bytes: 0,
    truncated: false,
    timedOut: false,
    cancelled: false,
    durationMs: Date.now() - startedAt.getTime(),
    ...fields,
  });
  const span = ollieTracer(TRACER_SCOPE).startSpan(
    `tools/call ${entry.tool}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR.mcpMethodName]: "tools/call",
        [ATTR.operationName]: OPERATION.executeTool,
        [ATTR.toolName]: entry.tool,
      },
    },
    options.trace?.context ?? context.active(),
  );
  const failed = (errorType: string, message?: string) => {
    span.setAttribute(ATTR.errorType, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, ...(message !== undefined && { message }) });
  };
  const done = (async (): Promise<ToolOutcome> => {
    try {
      const result = await link.call(entry.tool, args, {
        signal,
        onprogress: (p) => stream.append(Buffer.from(progressLine(p))),
      });
      const text = Buffer.from(mcpResultText(result));
      const output = new OutputBuffer(limit);
      output.push(text);
      stream.append(text);
      if (result.isError) failed("tool_error");
      return outcome({
        exitCode: result.isError ? 1 : 0,
        output: output.text(),
        bytes: output.total,
        truncated: output.truncated,
      });
    } catch (error) {
      if (timer.aborted) {
        failed("timeout");
        return outcome({ timedOut: true, output: `timed out after ${entry.meta.timeoutMs / 1000} s` });
      }
      if (signal.aborted) {
        failed("cancelled");
        return outcome({ cancelled: true, output: "cancelled" });
      }
      failed(errorTypeOf(error), (error as Error).message);
      const failure = `${entry.meta.name}: ${(error as Error).message}`;
      return outcome({ failure, output: failure });
    } finally {
      stream.close();
      span.end();
    }
  })();
  return {
    tool: entry.meta.name,
    pid: link.pid,
    startedAt,
    stream,
    done,
    kill: () => killed.abort(new Error("killed")),
  };
}
