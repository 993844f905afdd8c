/** The chat endpoints a Copilot model may list in `supported_endpoints`. */
export type CopilotEndpoint = "/chat/completions" | "/responses" | "/v1/messages";

export type PolicyState = "enabled" | "disabled" | "unconfigured";

/** One entry of `GET /models`, with the field names of the official extension's `IModelAPIResponse`. */
export interface CopilotModel {
  id: string;
  name: string;
  vendor: string;
  version: string;
  object: "model";
  preview: boolean;
  model_picker_enabled: boolean;
  is_chat_default: boolean;
  is_chat_fallback: boolean;
  billing?: { is_premium: boolean; multiplier: number };
  /** Present only for models that need opt-in; anything but "enabled" refuses chat requests. */
  policy?: { state: PolicyState; terms: string };
  capabilities: {
    type: "chat" | "embeddings" | "completion";
    family: string;
    object: "model_capabilities";
    tokenizer: string;
    limits: {
      max_context_window_tokens?: number;
      max_prompt_tokens?: number;
      max_output_tokens?: number;
      max_inputs?: number;
      vision?: { max_prompt_images: number };
    };
    supports: {
      streaming?: boolean;
      tool_calls?: boolean;
      parallel_tool_calls?: boolean;
      vision?: boolean;
      thinking?: boolean;
      max_thinking_budget?: number;
      min_thinking_budget?: number;
      reasoning_effort?: string[];
    };
  };
  /** Missing on some entries; the official client then uses chat completions. */
  supported_endpoints?: CopilotEndpoint[];
}

/** What differs between catalogue entries; the rest is filled in as Copilot fills it for a chat model. */
export interface CopilotModelSpec {
  id: string;
  name?: string;
  vendor?: string;
  type?: CopilotModel["capabilities"]["type"];
  endpoints?: CopilotEndpoint[];
  /** Premium-request multiplier; 0 makes the model free (not premium). Default 1. */
  multiplier?: number;
  /** Adds a `policy` with this state (models without one need no opt-in). */
  policy?: PolicyState;
  contextWindow?: number;
  maxOutput?: number;
  vision?: boolean;
  toolCalls?: boolean;
  thinking?: boolean;
  reasoningEffort?: string[];
  isDefault?: boolean;
}

/** A full `/models` entry from the few fields that matter to a test. */
export function copilotModel(spec: CopilotModelSpec): CopilotModel {
  const type = spec.type ?? "chat";
  const multiplier = spec.multiplier ?? 1;
  const window = spec.contextWindow ?? 128_000;
  const output = spec.maxOutput ?? 16_000;
  return {
    id: spec.id,
    name: spec.name ?? spec.id,
    vendor: spec.vendor ?? "OpenAI",
    version: spec.id,
    object: "model",
    preview: false,
    model_picker_enabled: type === "chat",
    is_chat_default: spec.isDefault ?? false,
    is_chat_fallback: spec.isDefault ?? false,
    billing: { is_premium: multiplier > 0, multiplier },
    ...(spec.policy && {
      policy: { state: spec.policy, terms: `Enable access to the latest ${spec.name ?? spec.id} model.` },
    }),
    capabilities:
      type === "chat"
        ? {
            type,
            family: spec.id,
            object: "model_capabilities",
            tokenizer: "o200k_base",
            limits: {
              max_context_window_tokens: window,
              max_prompt_tokens: window - output,
              max_output_tokens: output,
              ...(spec.vision !== false && { vision: { max_prompt_images: 5 } }),
            },
            supports: {
              streaming: true,
              tool_calls: spec.toolCalls ?? true,
              parallel_tool_calls: spec.toolCalls ?? true,
              vision: spec.vision ?? true,
              ...(spec.thinking && {
                thinking: true,
                max_thinking_budget: 32_000,
                min_thinking_budget: 1024,
              }),
              ...(spec.reasoningEffort && { reasoning_effort: spec.reasoningEffort }),
            },
          }
        : {
            type,
            family: spec.id,
            object: "model_capabilities",
            tokenizer: "cl100k_base",
            limits: { max_inputs: 512 },
            supports: {},
          },
    ...(spec.endpoints && { supported_endpoints: spec.endpoints }),
  };
}

/**
 * The catalogue a CopilotMock starts with: one model per route a client must tell apart, one it must
 * enable first, and one it must filter out.
 */
export const DEFAULT_COPILOT_MODELS: readonly CopilotModel[] = [
  copilotModel({
    id: "gpt-4.1",
    name: "GPT-4.1",
    endpoints: ["/chat/completions"],
    multiplier: 0,
    contextWindow: 128_000,
    isDefault: true,
  }),
  copilotModel({
    id: "claude-sonnet-4.5",
    name: "Claude Sonnet 4.5",
    vendor: "Anthropic",
    endpoints: ["/chat/completions", "/v1/messages"],
    policy: "enabled",
    contextWindow: 144_000,
    thinking: true,
  }),
  copilotModel({
    id: "gpt-5.1-codex",
    name: "GPT-5.1-Codex",
    endpoints: ["/responses"],
    policy: "enabled",
    contextWindow: 400_000,
    maxOutput: 128_000,
    reasoningEffort: ["low", "medium", "high"],
  }),
  copilotModel({
    id: "gemini-2.5-pro",
    name: "Gemini 2.5 Pro",
    vendor: "Google",
    endpoints: ["/chat/completions"],
    policy: "disabled",
    contextWindow: 128_000,
    maxOutput: 64_000,
  }),
  copilotModel({
    id: "text-embedding-3-small",
    name: "Embedding V3 small",
    vendor: "Azure OpenAI",
    type: "embeddings",
    multiplier: 0,
  }),
];

/** The mock's models, with the policy state each has reached through `POST /models/{id}/policy`. */
export class ModelCatalogue {
  private models: CopilotModel[] = [];

  constructor(models: readonly CopilotModel[]) {
    this.replace(models);
  }

  /** Replaces the catalogue (deep copies: policy changes never leak into the caller's objects). */
  replace(models: readonly CopilotModel[]): void {
    this.models = structuredClone([...models]);
  }

  list(): CopilotModel[] {
    return this.models;
  }

  find(id: string): CopilotModel | undefined {
    return this.models.find((m) => m.id === id);
  }

  /** Sets a model's policy state; false when there is no such model. */
  setPolicy(id: string, state: PolicyState): boolean {
    const model = this.find(id);
    if (!model) return false;
    model.policy = { terms: model.policy?.terms ?? "", state };
    return true;
  }

  /**
   * Whether a chat request for `id` on `endpoint` goes through: a chat model that lists the endpoint and
   * needs no opt-in, or was opted in.
   */
  serves(id: string, endpoint: CopilotEndpoint): boolean {
    const model = this.find(id);
    if (model?.capabilities.type !== "chat") return false;
    if (!(model.supported_endpoints ?? ["/chat/completions"]).includes(endpoint)) return false;
    return model.policy === undefined || model.policy.state === "enabled";
  }
}
