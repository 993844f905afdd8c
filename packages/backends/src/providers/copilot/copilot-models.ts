import type { ModelInfo } from "../../types.js";

/** The three chat APIs Copilot serves, as its model list names them. */
export type CopilotEndpoint = "/chat/completions" | "/v1/messages" | "/responses";

/** A model as Copilot's `/models` describes it (only what Ollie reads). */
export interface CopilotModel {
  id: string;
  model_picker_enabled?: boolean;
  capabilities?: {
    type?: string;
    limits?: {
      max_context_window_tokens?: number;
      max_prompt_tokens?: number;
      max_output_tokens?: number;
    };
    supports?: { tool_calls?: boolean; vision?: boolean; streaming?: boolean; thinking?: boolean };
  };
  supported_endpoints?: string[];
  billing?: { is_premium?: boolean; multiplier?: number };
  policy?: { state?: string; terms?: string };
}

const CLAUDE = /^claude/i;
/** The family Copilot serves through the Responses API (gpt-5, gpt-5.1-codex, codex-mini …). */
const RESPONSES_FAMILY = /^(?:gpt-5|.*codex)/i;

/**
 * The API a model is spoken to through. The model list decides: Claude models through Anthropic's
 * messages (native thinking and caching) when listed there, the gpt-5/codex family through Responses when
 * listed there, else chat completions when listed, else the one endpoint listed. A model the list does not
 * describe goes by its name, as the list would usually have it.
 */
export function endpointFor(id: string, model: CopilotModel | undefined): CopilotEndpoint {
  const listed = model?.supported_endpoints;
  if (!listed || listed.length === 0) {
    if (CLAUDE.test(id)) return "/v1/messages";
    return RESPONSES_FAMILY.test(id) ? "/responses" : "/chat/completions";
  }
  if (CLAUDE.test(id) && listed.includes("/v1/messages")) return "/v1/messages";
  if (RESPONSES_FAMILY.test(id) && listed.includes("/responses")) return "/responses";
  if (listed.includes("/chat/completions")) return "/chat/completions";
  if (listed.includes("/responses")) return "/responses";
  if (listed.includes("/v1/messages")) return "/v1/messages";
  return "/chat/completions";
}

/** The chat models of a `/models` answer (embeddings and completion models left out). */
export function chatModels(list: unknown): CopilotModel[] {
  const data = (list as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return [];
  return data.filter(
    (m): m is CopilotModel =>
      typeof m === "object" &&
      m !== null &&
      typeof (m as CopilotModel).id === "string" &&
      ((m as CopilotModel).capabilities?.type ?? "chat") === "chat",
  );
}

/**
 * What the model table shows of a Copilot model: the prompt budget as its context window (Copilot
 * refuses prompts above `max_prompt_tokens`, which is below the model's full window), its output limit,
 * whether it takes tools and images, and its premium-request multiplier.
 */
export function modelInfoOf(m: CopilotModel): ModelInfo {
  const limits = m.capabilities?.limits;
  const supports = m.capabilities?.supports;
  const window = limits?.max_prompt_tokens ?? limits?.max_context_window_tokens;
  return {
    id: m.id,
    ...(window !== undefined && { contextLength: window }),
    ...(limits?.max_output_tokens !== undefined && { maxOutputTokens: limits.max_output_tokens }),
    ...(supports?.tool_calls !== undefined && { tools: supports.tool_calls }),
    ...(supports?.vision !== undefined && { vision: supports.vision }),
    ...(m.billing?.multiplier !== undefined && { premiumMultiplier: m.billing.multiplier }),
  };
}
