// The `execute_tool {tool}` span of a tool call: its preTool hook, the read cache, the call itself and its
// postTool hook, with the span current so that the executor (a tool server's client) can carry the trace
// on to the process that runs the tool, and mark the span with what it learns (an exit status).

import type { ToolCall, ToolResultMessage } from "@ollie/backends";
import { ATTR, captureMessageContent, OPERATION, truncateContent } from "@ollie/telemetry";
import { type Attributes, context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { agentInstruments, agentTracer, metricsLive, tracingLive, UNTRACED } from "./agent-telemetry.js";

/**
 * Why a call failed, as its span's `error.type`: a preTool hook refused it, its arguments were refused, it
 * ran out of time, the turn's interruption stopped it, or the tool reported (or threw) a failure.
 */
export type ToolFailure = "refused" | "arguments" | "timeout" | "interrupted" | "tool_error";

/** What a call tells its span as it runs. */
export interface CallNote {
  failure?: ToolFailure;
  /** Answered from the turn's read cache. */
  cached?: boolean;
}

/**
 * `gen_ai.tool.type`: an MCP server's tool (named `mcp__SERVER__TOOL`, as Ollie's tool server names them)
 * is an extension; every other tool a function the agent's side runs.
 */
const toolType = (name: string) => (name.startsWith("mcp__") ? "extension" : "function");

/** Runs a call (`work`) in its span, current for it, and records its duration and failure. */
export function traceToolCall(
  call: ToolCall,
  profile: string | undefined,
  work: (note: CallNote) => Promise<ToolResultMessage>,
): Promise<ToolResultMessage> {
  const tracing = tracingLive();
  const measuring = metricsLive();
  // Untraced and unmeasured, the call runs as it would without telemetry, with no layer around it.
  return tracing || measuring ? tracedCall(call, profile, work, tracing, measuring) : work({});
}

async function tracedCall(
  call: ToolCall,
  profile: string | undefined,
  work: (note: CallNote) => Promise<ToolResultMessage>,
  tracing: boolean,
  measuring: boolean,
): Promise<ToolResultMessage> {
  const started = measuring ? performance.now() : 0;
  const metric = measuring ? callAttributes(call, profile, {}) : undefined;
  const span = tracing
    ? agentTracer().startSpan(`${OPERATION.executeTool} ${call.name}`, {
        kind: SpanKind.INTERNAL,
        attributes: callAttributes(call, profile, { [ATTR.toolCallId]: call.id }),
      })
    : UNTRACED;
  const recording = span.isRecording();
  const capture = recording && captureMessageContent();
  if (capture) span.setAttribute(ATTR.toolCallArguments, truncateContent(argumentsText(call)));
  const note: CallNote = {};
  let failure: string | undefined;
  try {
    const result = await (span === UNTRACED
      ? work(note)
      : context.with(trace.setSpan(context.active(), span), () => work(note)));
    failure = note.failure ?? (result.isError ? "tool_error" : undefined);
    if (recording) {
      span.setAttribute(ATTR.toolCached, note.cached === true);
      if (capture) span.setAttribute(ATTR.toolCallResult, truncateContent(result.content));
    }
    return result;
  } catch (error) {
    // dispatch never throws; a hook's or the code's own bug may.
    failure = "tool_error";
    throw error;
  } finally {
    if (failure !== undefined && recording) {
      span.setAttribute(ATTR.errorType, failure);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
    if (metric) {
      const instruments = agentInstruments();
      if (failure !== undefined) {
        metric[ATTR.errorType] = failure;
        instruments.toolFailures.add(1, { [ATTR.toolName]: call.name, [ATTR.errorType]: failure });
      }
      instruments.executeToolDuration.record((performance.now() - started) / 1000, metric);
    }
  }
}

/** What both the span and the measurements say of a call, written into `attributes`. */
function callAttributes(call: ToolCall, profile: string | undefined, attributes: Attributes): Attributes {
  attributes[ATTR.operationName] = OPERATION.executeTool;
  attributes[ATTR.toolName] = call.name;
  attributes[ATTR.toolType] = toolType(call.name);
  if (profile !== undefined) attributes[ATTR.agentName] = profile;
  return attributes;
}

const argumentsText = (call: ToolCall) => call.rawArguments ?? JSON.stringify(call.arguments);
