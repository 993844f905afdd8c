import { getJson } from "../../http/http-request.js";
import { readSse, type SseItem } from "../../http/sse-reader.js";
import type { GenerationParams, Message, ModelInfo, Tool } from "../../types.js";
import { type ChatRequest, HttpBackend, type HttpBackendOptions } from "../http-backend.js";
import { OpenAiDecoder } from "./decoder.js";
import { type OpenAiBodyOptions, openAiRequestBody } from "./request-body.js";

export interface OpenAiOptions extends OpenAiBodyOptions, HttpBackendOptions {
  /** Base URL including the version, e.g. https://api.openai.com/v1 or http://localhost:11434/v1. */
  baseUrl: string;
}

interface ModelListEntry {
  id: string;
  context_length?: number;
  max_model_len?: number;
  top_provider?: { context_length?: number };
  meta?: { n_ctx?: number };
}

/**
 * OpenAI chat completions and every server that speaks them: OpenAI, OpenRouter, vLLM, llama.cpp,
 * LM Studio, Ollama's /v1.
 */
export class OpenAiBackend extends HttpBackend<OpenAiOptions, SseItem> {
  readonly provider = "openai";

  constructor(options: OpenAiOptions) {
    super(options, { name: "openai", baseUrl: options.baseUrl });
  }

  protected headers(): Record<string, string> {
    const key = this.apiKey();
    return {
      accept: "text/event-stream",
      ...(key !== undefined && { authorization: `Bearer ${key}` }),
      ...this.options.headers,
    };
  }

  protected chatRequest(
    model: string,
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams,
  ): ChatRequest<SseItem> {
    const maxTokensField =
      this.options.maxTokensField ??
      (/api\.openai\.com/.test(this.base) ? "max_completion_tokens" : "max_tokens");
    return {
      url: `${this.base}/chat/completions`,
      body: openAiRequestBody(model, messages, tools, params, { ...this.options, maxTokensField }, this.warn),
      read: readSse,
      decoder: new OpenAiDecoder(this.source),
    };
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const list = (await getJson(this.source, `${this.base}/models`, this.headers(), signal)) as {
      data?: ModelListEntry[];
    };
    return (list.data ?? []).map((m) => {
      const window = m.context_length ?? m.top_provider?.context_length ?? m.max_model_len ?? m.meta?.n_ctx;
      return window === undefined ? { id: m.id } : { id: m.id, contextLength: window };
    });
  }
}
