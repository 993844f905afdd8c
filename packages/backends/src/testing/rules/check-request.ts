import type { ApiDialect } from "../mock-provider.js";
import { checkAnthropicRequest } from "./anthropic-rules.js";
import { checkGeminiRequest } from "./gemini-rules.js";
import { checkOllamaRequest } from "./ollama-rules.js";
import { checkOpenAiRequest } from "./openai-rules.js";
import type { ParsedRequest, Rejection, RequestRule } from "./request-check.js";

const RULES: Record<ApiDialect, RequestRule> = {
  anthropic: checkAnthropicRequest,
  gemini: checkGeminiRequest,
  ollama: checkOllamaRequest,
  openai: checkOpenAiRequest,
};

/** Checks a chat request against its provider's documented rules: undefined if valid, else the 400. */
export function checkRequest(provider: ApiDialect, request: ParsedRequest): Rejection | undefined {
  return RULES[provider](request);
}
