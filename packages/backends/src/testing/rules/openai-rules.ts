import { openAiRejection } from "./rejections.js";
import {
  isObject,
  type JsonObject,
  jsonKind,
  objectsOf,
  type ParsedRequest,
  type Rejection,
} from "./request-check.js";

/** "an object", "a number": the article the API's type errors use. */
const withArticle = (kind: string) =>
  kind === "null" ? "null" : `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;

/** Type errors in the messages, which the API finds while reading the body, before any semantic check. */
function typeProblem(messages: JsonObject[]): Rejection | undefined {
  for (const [n, m] of messages.entries()) {
    if (m.role !== "assistant") continue;
    const calls = objectsOf(m.tool_calls);
    if (m.content === null && calls.length === 0)
      return openAiRejection(
        "Invalid value for 'content': expected a string, got null.",
        `messages.[${n}].content`,
      );
    for (const [k, call] of calls.entries()) {
      const args = isObject(call.function) ? call.function.arguments : undefined;
      if (args === undefined || typeof args === "string") continue;
      const field = `messages[${n}].tool_calls[${k}].function.arguments`;
      return openAiRejection(
        `Invalid type for '${field}': expected a string, but got ${withArticle(jsonKind(args))} instead.`,
        field,
        "invalid_type",
      );
    }
  }
  return undefined;
}

function unanswered(ids: Iterable<string>, at: number): Rejection {
  return openAiRejection(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...ids].join(", ")}`,
    `messages.[${at}].role`,
  );
}

/**
 * Tool messages answer the tool calls of the assistant message right before them (only tool messages in
 * between), and every call is answered before the conversation moves on.
 */
function pairingProblem(messages: JsonObject[]): Rejection | undefined {
  let caller = -1;
  let open = new Set<string>();
  // The ids of the calls tool messages may still answer; undefined once another kind of message came.
  let answerable: Set<string> | undefined;
  for (const [n, m] of messages.entries()) {
    if (m.role === "tool") {
      if (answerable === undefined)
        return openAiRejection(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${n}].role`,
        );
      const id = String(m.tool_call_id);
      if (!answerable.has(id))
        return openAiRejection(
          `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`,
          `messages.[${n}].tool_call_id`,
        );
      open.delete(id);
      continue;
    }
    if (open.size > 0) return unanswered(open, caller);
    const ids = objectsOf(m.tool_calls).map((c) => String(c.id));
    answerable = m.role === "assistant" && ids.length > 0 ? new Set(ids) : undefined;
    if (answerable) {
      caller = n;
      open = new Set(ids);
    }
  }
  return open.size > 0 ? unanswered(open, caller) : undefined;
}

/** OpenAI chat completions (`/v1/chat/completions`): the 400 it answers a broken request with, if any. */
export function checkOpenAiRequest(request: ParsedRequest): Rejection | undefined {
  const body = isObject(request.body) ? request.body : {};
  if (body.messages === undefined)
    return openAiRejection(
      "Missing required parameter: 'messages'.",
      "messages",
      "missing_required_parameter",
    );
  const messages = objectsOf(body.messages);
  // Observed with `param: null`, though the field is named in the message.
  if (messages.length === 0) return openAiRejection("[] is too short - 'messages'", null);
  return typeProblem(messages) ?? pairingProblem(messages);
}
