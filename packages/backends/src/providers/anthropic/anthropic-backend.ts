import { getJson } from "../../http/http-request.js";
import { readSse, type SseItem } from "../../http/sse-reader.js";
import type { GenerationParams, Message, ModelInfo, Tool } from "../../types.js";
import { type ChatRequest, HttpBackend, type HttpBackendOptions } from "../http-backend.js";
import { AnthropicDecoder } from "./decoder.js";
import { type AnthropicBodyOptions, anthropicRequestBody } from "./request-body.js";

/** `baseUrl` defaults to https://api.anthropic.com; `headers` may add anthropic-beta, for instance. */
export interface AnthropicOptions extends AnthropicBodyOptions, HttpBackendOptions {}

/** The context window of Claude models when the model list does not say. */
const CLAUDE_WINDOW = 200_000;

/** Anthropic's messages API: thinking with a budget, prompt caching, tool use. */
export class AnthropicBackend extends HttpBackend<AnthropicOptions, SseItem> {
  readonly provider = "anthropic";

  constructor(options: AnthropicOptions) {
    super(options, { name: "anthropic", baseUrl: "https://api.anthropic.com" });
  }

  protected headers(): Record<string, string> {
    const key = this.apiKey();
    return {
      "anthropic-version": "2023-06-01",
      accept: "text/event-stream",
      ...(key !== undefined && { "x-api-key": key }),
      ...this.options.headers,
    };
  }

  protected chatRequest(
    model: string,
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams,
  ): ChatRequest<SseItem> {
    return {
      url: `${this.base}/v1/messages`,
      body: anthropicRequestBody(model, messages, tools, params, this.options, this.warn),
      read: readSse,
      decoder: new AnthropicDecoder(this.source),
    };
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const list = (await getJson(
      this.source,
      `${this.base}/v1/models?limit=1000`,
      this.headers(),
      signal,
    )) as {
      data?: Array<{ id: string; max_input_tokens?: number }>;
    };
    return (list.data ?? []).map((m) =>
      m.max_input_tokens ? { id: m.id, contextLength: m.max_input_tokens } : { id: m.id },
    );
  }

  protected override async lookUpContextLength(
    model: string,
    signal?: AbortSignal,
  ): Promise<number | undefined> {
    return (
      (await super.lookUpContextLength(model, signal)) ??
      (model.startsWith("claude") ? CLAUDE_WINDOW : undefined)
    );
  }
}
