// How a call ended, as span attributes: the same names on toolsrv's span of the call and on the caller's
// span of the tool call (agent-core's execute_tool, which ToolsrvConn finds active), so that either says
// how the tool's process ended.
import { ATTR } from "@ollie/telemetry";
import type { Attributes } from "@opentelemetry/api";
import type { CallResult } from "../protocol/call.js";

/** The tracer scope of toolsrv's spans and of its client's attributes. */
export const TRACER_SCOPE = "@ollie/toolsrv";

/** The result's exit status, signal, timeout, cancellation, limits reached and process number, where it has them. */
export function callResultAttributes(result: CallResult): Attributes {
  const attributes: Attributes = {};
  if (result.proc !== undefined) attributes[ATTR.toolProc] = result.proc;
  if (typeof result.exitCode === "number") attributes[ATTR.toolExitCode] = result.exitCode;
  if (result.signal) attributes[ATTR.toolSignal] = result.signal;
  if (result.timedOut !== undefined) attributes[ATTR.toolTimedOut] = result.timedOut;
  if (result.cancelled !== undefined) attributes[ATTR.toolCancelled] = result.cancelled;
  if (result.detached) attributes[ATTR.toolDetached] = true;
  if (result.reached && result.reached.length > 0)
    attributes[ATTR.toolLimitsReached] = result.reached.map((reached) => reached.limit);
  return attributes;
}
