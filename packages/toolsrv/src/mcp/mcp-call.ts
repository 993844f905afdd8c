import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { AppendBuffer } from "@ollie/virtfs";
import { OutputBuffer } from "../exec/output-buffer.js";
import type { ToolOutcome, ToolRun } from "../exec/run-tool.js";
import type { McpToolEntry } from "./links-survey.js";
import type { McpLink } from "./mcp-link.js";
import { mcpResultText } from "./mcp-result.js";

export interface McpCallRunOptions {
  maxOutputBytes?: number;
  /** Cancels the call (MCP's `notifications/cancelled`). */
  signal?: AbortSignal;
}

const progressLine = (p: Progress) =>
  `[progress ${p.progress}${p.total === undefined ? "" : `/${p.total}`}${p.message ? `: ${p.message}` : ""}]\n`;

/**
 * A call of an MCP server's tool, shaped like a tool process so proc/ shows it: its progress notifications
 * and then its result go to the output stream; `kill`, the signal and the tool's timeout cancel it. An
 * `isError` result ends it with status 1, a result ends it with 0, and a call that got no result (the
 * server died, or refused the request) ends with `failure`.
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
      return outcome({
        exitCode: result.isError ? 1 : 0,
        output: output.text(),
        bytes: output.total,
        truncated: output.truncated,
      });
    } catch (error) {
      if (timer.aborted)
        return outcome({ timedOut: true, output: `timed out after ${entry.meta.timeoutMs / 1000} s` });
      if (signal.aborted) return outcome({ cancelled: true, output: "cancelled" });
      const failure = `${entry.meta.name}: ${(error as Error).message}`;
      return outcome({ failure, output: failure });
    } finally {
      stream.close();
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
