import { getJson, postJson } from "../../http/http-request.js";
import { readLines } from "../../http/ndjson-reader.js";
import { estimateTokens } from "../../tokens/token-estimate.js";
import type { GenerationParams, Message, ModelInfo, Tool } from "../../types.js";
import { type ChatRequest, HttpBackend, type HttpBackendOptions } from "../http-backend.js";
import { OllamaDecoder } from "./decoder.js";
import { type OllamaBodyOptions, ollamaRequestBody } from "./request-body.js";

/**
 * `baseUrl` defaults to http://localhost:11434; `apiKey` is for Ollama behind a proxy or Ollama's cloud.
 * `numCtx` is the context window every request asks for; without it, OLLAMA_DEFAULT_NUM_CTX or the model's
 * trained length, whichever is smaller.
 */
export interface OllamaOptions extends OllamaBodyOptions, HttpBackendOptions {}

/**
 * The window asked for when none is configured: Ollama's own default depends on the machine's memory
 * (4,096 tokens below 24 GiB of VRAM) and it then drops the oldest messages silently, so a window is always
 * sent. 16,384 tokens holds an agent's system prompt and tools with room to work, and its cache fits the
 * memory of the machines small models run on (about 2.3 GiB for an 8B model); raise it with `num_ctx`.
 */
export const OLLAMA_DEFAULT_NUM_CTX = 16_384;

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
      body: async (signal) => {
        const numCtx = await this.window(model, signal);
        return ollamaRequestBody(model, messages, tools, params, { numCtx });
      },
      read: readLines,
      decoder: new OllamaDecoder(this.source, () => estimateTokens(messages, tools)),
    };
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const tags = (await getJson(this.source, `${this.base}/api/tags`, this.headers(), signal)) as {
      models?: Array<{ name: string }>;
    };
    return (tags.models ?? []).map((m) => ({ id: m.name }));
  }

  /**
   * The window a request asks for: `numCtx` when configured, else the default capped by the model's trained
   * length (the default alone when /api/show cannot tell).
   */
  private async window(model: string, signal?: AbortSignal): Promise<number> {
    const known = await this.contextLengthOf(model, signal).catch(() => undefined);
    return known ?? OLLAMA_DEFAULT_NUM_CTX;
  }

  /** The window requests ask for, which is all the model gets to see: not the trained maximum. */
  protected override async lookUpContextLength(model: string, signal?: AbortSignal): Promise<number> {
    if (this.options.numCtx !== undefined) return this.options.numCtx;
    const trained = await this.trainedLength(model, signal);
    return Math.min(trained ?? OLLAMA_DEFAULT_NUM_CTX, OLLAMA_DEFAULT_NUM_CTX);
  }

  /** The model's trained maximum, from /api/show. */
  private async trainedLength(model: string, signal?: AbortSignal): Promise<number | undefined> {
    const show = await postJson(this.source, `${this.base}/api/show`, { model }, this.headers(), signal);
    const info = (show as { model_info?: Record<string, unknown> }).model_info ?? {};
    const arch = info["general.architecture"];
    const window =
      info[`${arch}.context_length`] ??
      Object.entries(info).find(([k]) => k.endsWith(".context_length"))?.[1];
    return typeof window === "number" ? window : undefined;
  }
}
