import { getJson, postJson } from "../../http/http-request.js";
import { readLines } from "../../http/ndjson-reader.js";
import type { GenerationParams, Message, ModelInfo, Tool } from "../../types.js";
import { type ChatRequest, HttpBackend, type HttpBackendOptions } from "../http-backend.js";
import { OllamaDecoder } from "./decoder.js";
import { type OllamaBodyOptions, ollamaRequestBody } from "./request-body.js";

/** `baseUrl` defaults to http://localhost:11434; `apiKey` is for Ollama behind a proxy or Ollama's cloud. */
export interface OllamaOptions extends OllamaBodyOptions, HttpBackendOptions {}

/** Ollama's native /api/chat (local models; thinking; tools). */
export class OllamaBackend extends HttpBackend<OllamaOptions, string> {
  readonly provider = "ollama";

  constructor(options: OllamaOptions) {
    super(options, { name: "ollama", baseUrl: "http://localhost:11434" });
  }

  protected headers(): Record<string, string> {
    const key = this.apiKey();
    return { ...(key !== undefined && { authorization: `Bearer ${key}` }), ...this.options.headers };
  }

  protected chatRequest(
    model: string,
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams,
  ): ChatRequest<string> {
    return {
      url: `${this.base}/api/chat`,
      body: ollamaRequestBody(model, messages, tools, params, this.options),
      read: readLines,
      decoder: new OllamaDecoder(this.name),
    };
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const tags = (await getJson(this.name, `${this.base}/api/tags`, this.headers(), signal)) as {
      models?: Array<{ name: string }>;
    };
    return (tags.models ?? []).map((m) => ({ id: m.name }));
  }

  /** `num_ctx` when configured (what is allocated); otherwise the trained maximum from /api/show. */
  protected override async lookUpContextLength(
    model: string,
    signal?: AbortSignal,
  ): Promise<number | undefined> {
    if (this.options.numCtx !== undefined) return this.options.numCtx;
    const show = await postJson(this.name, `${this.base}/api/show`, { model }, this.headers(), signal);
    const info = (show as { model_info?: Record<string, unknown> }).model_info ?? {};
    const arch = info["general.architecture"];
    const window =
      info[`${arch}.context_length`] ??
      Object.entries(info).find(([k]) => k.endsWith(".context_length"))?.[1];
    return typeof window === "number" ? window : undefined;
  }
}
