import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isSessionId, RefusedError } from "@ollie/client";

/** A tool's answer: `text` for the model, and `structured` for a client that reads the tool's outputSchema. */
export function answer(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], ...(structured && { structuredContent: structured }) };
}

/**
 * A tool call that failed, as a result rather than a JSON-RPC error: the model reads it, so it says what
 * failed and, where it helps, what to do.
 */
export function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Runs a tool's work; a failure (olliesrv unreachable, a refusal) becomes a failure result saying why. */
export async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return failure((error as Error).message);
  }
}

/**
 * Runs a tool's work on `session`; a failure becomes a failure result that names the session. An id that is
 * not one is refused before anything is asked, so no tool reaches outside that session.
 */
export async function onSession(
  session: string,
  work: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  if (!isSessionId(session))
    return failure(`'${session}' is not a session id (ollie_status without a session lists the sessions)`);
  try {
    return await work();
  } catch (error) {
    return failure(`session ${session}: ${reason(session, error)}`);
  }
}

/** Why a call on `session` failed: olliesrv's words for a refusal (the result names the session already). */
function reason(session: string, error: unknown): string {
  const message = error instanceof RefusedError ? error.reason : (error as Error).message;
  return message === `'${session}' file not found`
    ? "no such session (ollie_status without a session lists the sessions)"
    : message;
}
