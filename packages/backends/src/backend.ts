import type { GenerationParams, Message, ModelInfo, StreamEvent, Tool } from "./types.js";

/** Where a backend's requests go: a host name or address, and the port (the scheme's default if unsaid). */
export interface ServerAddress {
  address: string;
  port: number;
}

/**
 * A streaming LLM provider. `chatStream` yields events as they arrive and ends with one `done`; it throws a
 * BackendError subclass on failure (before or during the stream) and an AbortError when `signal` aborts,
 * after which the HTTP request is closed.
 */
export interface Backend {
  /** The profile name (from backends.conf) or a name given in code. */
  readonly name: string;
  /** openai, anthropic, ollama, gemini, copilot, kiro, demo or scripted. */
  readonly provider: string;
  readonly model: string;
  /**
   * The host and port requests go to, when the backend knows them: taken from its base URL's host alone,
   * never the URL (a credential may ride in its query).
   */
  readonly server?: ServerAddress;
  setModel(model: string): void;
  chatStream(
    messages: readonly Message[],
    tools: readonly Tool[],
    params?: GenerationParams,
    signal?: AbortSignal,
  ): AsyncIterable<StreamEvent>;
  /** The model's context window in tokens, from the provider where it says (cached), else undefined. */
  contextLength(signal?: AbortSignal): Promise<number | undefined>;
  models(signal?: AbortSignal): Promise<ModelInfo[]>;
}
