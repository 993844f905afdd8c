/** The provider (openai, anthropic, ollama, gemini …) and model that produced a signed part of a reply. */
export interface Origin {
  provider: string;
  model: string;
}

/** A call the model asked for. `arguments` is the parsed JSON object. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** An opaque token the provider needs echoed with this call (Gemini's thoughtSignature). */
  signature?: string;
  /** Who made `signature`: it is valid only for that provider and model. */
  origin?: Origin;
  /** Set when the model's arguments were not a JSON object; `arguments` is then empty. */
  argumentsError?: string;
  /** The arguments as the model wrote them, kept when they could not be parsed. */
  rawArguments?: string;
}

/** A block of the model's reasoning, kept so it can be sent back as the provider requires. */
export interface ReasoningBlock {
  text: string;
  /** Anthropic thinking signature / Gemini thought signature. */
  signature?: string;
  /** Anthropic redacted thinking: opaque data, no text. */
  redacted?: string;
  /**
   * Who produced the block. A signature or redacted data is valid only for that provider and model; a
   * block without an origin (saved before origins were kept) is treated as the current model's.
   */
  origin?: Origin;
}

export interface SystemMessage {
  role: "system";
  content: string;
}
export interface UserMessage {
  role: "user";
  content: string;
}
export interface AssistantMessage {
  role: "assistant";
  content: string;
  toolCalls?: ToolCall[];
  reasoning?: ReasoningBlock[];
}
export interface ToolResultMessage {
  role: "tool";
  toolCallId: string;
  /** The tool's name (Ollama and Gemini want it with the result). */
  name: string;
  content: string;
  isError?: boolean;
}

/** A conversation turn. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

/** A function the model may call. */
export interface Tool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** Token counts of one request. `inputTokens` counts every prompt token, cached or not. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from the provider's cache (a part of inputTokens). */
  cachedInputTokens: number;
  /** Prompt tokens written to the cache (a part of inputTokens). */
  cacheCreationTokens: number;
  /** Output tokens spent on reasoning (a part of outputTokens), when reported. */
  reasoningTokens?: number;
  /** Set when the provider did not count the prompt (Ollama with a KV-cached prompt) and `inputTokens` is an estimate. */
  inputEstimated?: boolean;
  /** Set when the reply was cut off before the provider counted it and `outputTokens` is an estimate. */
  outputEstimated?: boolean;
  /** Cost in USD as the provider reported it (OpenRouter; 0 under a subscription); otherwise see `costOf`. */
  costUsd?: number;
  /** Kiro: the credits the request used, as its metering reports them. */
  credits?: number;
}

/**
 * Why a reply ended. `length`: the output limit (or the context window) cut it; `content_filter`: a safety
 * filter stopped the reply; `refusal`: the model declined; `blocked`: the prompt itself was blocked before
 * any reply; `malformed_call`: the model produced a tool call the provider could not parse (Gemini
 * MALFORMED_FUNCTION_CALL and kin); `error`: the provider ended the reply with an error finish.
 */
export type StopReason =
  | "stop"
  | "length"
  | "tool_use"
  | "content_filter"
  | "refusal"
  | "blocked"
  | "malformed_call"
  | "error"
  | "other";

/** What a stream yields. Every stream that does not throw ends with exactly one `done`. */
export type StreamEvent =
  | { type: "text"; delta: string }
  | { type: "reasoning"; delta: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_delta"; index: number; argsDelta: string }
  | { type: "tool_call"; index: number; call: ToolCall }
  | { type: "usage"; usage: Usage }
  | {
      type: "done";
      reason: StopReason;
      /** The provider's own word for it. */
      raw?: string;
      /** The whole reply, assembled from the events. */
      message: AssistantMessage;
      /**
       * The model that served the reply as the provider named it (often a dated version of the model asked
       * for), when the stream said.
       */
      model?: string;
      /** The provider's id of the reply (a chat completion's, a message's, a response's), when the stream said. */
      id?: string;
    };

/** Sampling and output settings; providers ignore what they do not have. */
export interface GenerationParams {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /** Thinking budget in tokens (Anthropic `budget_tokens`, Gemini `thinkingBudget`). */
  reasoningBudget?: number;
  /** Reasoning effort (OpenAI `reasoning_effort`, Ollama `think` level). */
  reasoningEffort?: "minimal" | "low" | "medium" | "high";
  /** Fields merged into the request body as they are, for what this type does not cover. */
  extra?: Record<string, unknown>;
}

/** A model a provider offers, with what its provider says of it (fields absent when it says nothing). */
export interface ModelInfo {
  id: string;
  contextLength?: number;
  /** The most tokens one reply may have. */
  maxOutputTokens?: number;
  /** Whether the model takes tool definitions. */
  tools?: boolean;
  /** Whether the model takes images. */
  vision?: boolean;
  /** Copilot: how many premium requests one request counts as (0 for included models). */
  premiumMultiplier?: number;
}
