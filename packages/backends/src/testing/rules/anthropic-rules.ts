import { blocksOf, toolResults, toolUseIds } from "./anthropic-content.js";
import { thinkingProblem } from "./anthropic-thinking-rules.js";
import { anthropicRejection } from "./rejections.js";
import { isObject, type JsonObject, objectsOf, type ParsedRequest, type Rejection } from "./request-check.js";

/**
 * Headers. Only the version is required: a key is not, because tests across the repository start an
 * AnthropicBackend without one (agent-core's wire-rules and max-steps tests).
 */
function headerProblem(request: ParsedRequest): string | undefined {
  return request.headers["anthropic-version"] === undefined
    ? "anthropic-version: header is required"
    : undefined;
}

/** What the request schema itself demands, reported in the API's field-path style. */
function schemaProblem(body: JsonObject): string | undefined {
  if (body.max_tokens === undefined) return "max_tokens: Field required";
  if (!Array.isArray(body.messages)) return "messages: Field required";
  for (const [i, m] of objectsOf(body.messages).entries()) {
    if (m.role !== "user" && m.role !== "assistant")
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
  }
  if (isObject(body.thinking) && body.thinking.type === "enabled") {
    const budget = body.thinking.budget_tokens;
    if (budget === undefined) return "thinking.enabled.budget_tokens: Field required";
    if (typeof budget === "number" && budget < 1024)
      return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
  }
  return undefined;
}

/** Every message says something (a final assistant prefill may be empty); no text block is blank. */
function contentProblem(messages: JsonObject[]): string | undefined {
  for (const [i, m] of messages.entries()) {
    const prefill = i === messages.length - 1 && m.role === "assistant";
    if (m.content === "" || blocksOf(m).length === 0) {
      if (prefill) continue;
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    for (const b of blocksOf(m)) {
      if (b.type !== "text" || typeof b.text !== "string") continue;
      if (b.text === "") return "messages: text content blocks must be non-empty";
      if (b.text.trim() === "") return "messages: text content blocks must contain non-whitespace text";
    }
  }
  return undefined;
}

/**
 * Tool use and results pair up across neighbours: every tool_use is answered in the very next (user)
 * message, and every tool_result answers a tool_use of the assistant message just before it. (Consecutive
 * messages of one role are not merged first, as the real API would: the providers here merge them.)
 */
function pairingProblem(messages: JsonObject[]): string | undefined {
  for (const [i, m] of messages.entries()) {
    const asked = new Set(toolUseIds(messages[i - 1]));
    for (const result of toolResults(m)) {
      if (!asked.has(result.id))
        return `messages.${i}.content.${result.at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${result.id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    // A trailing assistant message is a prefill to continue, not a turn awaiting results.
    if (i === messages.length - 1) continue;
    const answered = new Set(toolResults(messages[i + 1]).map((r) => r.id));
    const unanswered = toolUseIds(m).filter((id) => !answered.has(id));
    if (unanswered.length > 0)
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  return undefined;
}

/** Anthropic's messages API (`/v1/messages`): the 400 it answers a broken request with, if any. */
export function checkAnthropicRequest(request: ParsedRequest): Rejection | undefined {
  const body = isObject(request.body) ? request.body : {};
  const messages = objectsOf(body.messages);
  const problem =
    headerProblem(request) ??
    schemaProblem(body) ??
    contentProblem(messages) ??
    pairingProblem(messages) ??
    thinkingProblem(request, body, messages);
  return problem === undefined ? undefined : anthropicRejection(problem);
}
