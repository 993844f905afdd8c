import { blocksOf, toolResults } from "./anthropic-content.js";
import { isObject, type JsonObject, type ParsedRequest } from "./request-check.js";

const DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

/** `thinking.type` when the request thinks (`enabled` with a budget, or `adaptive`); else undefined. */
export function thinkingMode(body: JsonObject): "enabled" | "adaptive" | undefined {
  const type = isObject(body.thinking) ? body.thinking.type : undefined;
  return type === "enabled" || type === "adaptive" ? type : undefined;
}

/** Sampling settings thinking does not allow, and a budget that leaves no room under max_tokens. */
function settingsProblem(body: JsonObject): string | undefined {
  const mode = thinkingMode(body);
  if (mode === undefined) return undefined;
  const budget = isObject(body.thinking) ? body.thinking.budget_tokens : undefined;
  if (mode === "enabled" && typeof budget === "number" && typeof body.max_tokens === "number") {
    if (body.max_tokens <= budget)
      return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${DOCS}#max-tokens-and-context-window-size`;
  }
  if (body.temperature !== undefined && body.temperature !== 1)
    return `\`temperature\` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our documentation at ${DOCS}#feature-compatibility`;
  if (typeof body.top_p === "number" && body.top_p < 0.95)
    return `\`top_p\` must be greater than or equal to 0.95 or unset when thinking is enabled. Please consult our documentation at ${DOCS}#feature-compatibility`;
  if (body.top_k !== undefined)
    return `\`top_k\` must be unset when thinking is enabled. Please consult our documentation at ${DOCS}#feature-compatibility`;
  return undefined;
}

/**
 * Thinking blocks go back exactly as they came: each must carry a signature (redacted thinking: its data)
 * that this mock issued for this very model. A made-up, edited or foreign signature is refused, as the
 * real API verifies its own signatures.
 */
function signatureProblem(request: ParsedRequest, messages: JsonObject[]): string | undefined {
  for (const [i, m] of messages.entries()) {
    if (m.role !== "assistant") continue;
    for (const [k, b] of blocksOf(m).entries()) {
      const at = `messages.${i}.content.${k}`;
      if (b.type === "thinking") {
        if (typeof b.signature !== "string") return `${at}.thinking.signature: Field required`;
        if (!request.signatures.accepts("anthropic", request.model, b.signature))
          return `${at}: Invalid \`signature\` in \`thinking\` block`;
      }
      if (b.type === "redacted_thinking") {
        if (typeof b.data !== "string") return `${at}.redacted_thinking.data: Field required`;
        if (!request.signatures.accepts("anthropic", request.model, b.data))
          return `${at}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
  }
  return undefined;
}

/**
 * In a tool loop (the request ends with tool results) the assistant turn that made the calls is still
 * going on, and with thinking on it must start with its thinking block.
 */
function toolLoopProblem(body: JsonObject, messages: JsonObject[]): string | undefined {
  if (thinkingMode(body) === undefined || toolResults(messages.at(-1)).length === 0) return undefined;
  const at = messages.length - 2;
  const caller = messages[at];
  if (caller?.role !== "assistant") return undefined;
  const found = blocksOf(caller)[0]?.type;
  if (found === "thinking" || found === "redacted_thinking") return undefined;
  return `messages.${at}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(found)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${DOCS}`;
}

/** Extended-thinking rules: settings, replayed signatures, and the thinking block a tool loop needs. */
export function thinkingProblem(
  request: ParsedRequest,
  body: JsonObject,
  messages: JsonObject[],
): string | undefined {
  return settingsProblem(body) ?? signatureProblem(request, messages) ?? toolLoopProblem(body, messages);
}
