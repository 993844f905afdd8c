import { getJson } from "../../http/http-request.js";
import { readSse, type SseItem } from "../../http/sse-reader.js";
import type { GenerationParams, Message, ModelInfo, Tool } from "../../types.js";
import { type ChatRequest, HttpBackend, type HttpBackendOptions } from "../http-backend.js";
import { GeminiDecoder } from "./decoder.js";
import { geminiRequestBody } from "./request-body.js";

/** `baseUrl` defaults to https://generativelanguage.googleapis.com. */
export type GeminiOptions = HttpBackendOptions;

/** Google's Gemini API (streamGenerateContent with SSE). */
export class GeminiBackend extends HttpBackend<GeminiOptions, SseItem> {
  readonly provider = "gemini";

  constructor(options: GeminiOptions) {
    super(options, { name: "gemini", baseUrl: "https://generativelanguage.googleapis.com" });
  }

  protected headers(): Record<string, string> {
    const key = this.apiKey();
    return { ...(key !== undefined && { "x-goog-api-key": key }), ...this.options.headers };
  }

  protected chatRequest(
    model: string,
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams,
  ): ChatRequest<SseItem> {
    return {
      url: `${this.base}/v1beta/models/${encodeURIComponent(model)}:streamGenerateContent?alt=sse`,
      body: geminiRequestBody(model, messages, tools, params),
      read: readSse,
      decoder: new GeminiDecoder(this.source),
    };
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const list = (await getJson(
      this.source,
      `${this.base}/v1beta/models?pageSize=1000`,
      this.headers(),
      signal,
    )) as {
      models?: Array<{ name: string; inputTokenLimit?: number; supportedGenerationMethods?: string[] }>;
    };
    return (list.models ?? [])
      .filter((m) => m.supportedGenerationMethods?.includes("generateContent") ?? true)
      .map((m) => {
        const id = m.name.replace(/^models\//, "");
        return m.inputTokenLimit ? { id, contextLength: m.inputTokenLimit } : { id };
      });
  }
}
