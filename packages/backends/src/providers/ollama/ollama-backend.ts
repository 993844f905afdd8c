import type { Backend } from "../../backend.js";
import { Secret } from "../../config/secret.js";
import { errorFromResponse, getJson, postJson, send } from "../../http/http-request.js";
import { readLines } from "../../http/ndjson-reader.js";
import { EventStream } from "../../stream/event-stream.js";
import type { GenerationParams, Message, ModelInfo, StreamEvent, Tool } from "../../types.js";
import { OllamaDecoder } from "./decoder.js";
import { type OllamaBodyOptions, ollamaRequestBody } from "./request-body.js";

export interface OllamaOptions extends OllamaBodyOptions {
  name?: string;
  /** Default http://localhost:11434. */
  baseUrl?: string;
  model: string;
  /** For Ollama behind a proxy or Ollama's cloud. */
  /** Held as a Secret: it never shows when the backend is printed. */
  apiKey?: string | Secret;
  headers?: Record<string, string>;
}

/** Ollama's native /api/chat (local models; thinking; tools). */
export class OllamaBackend implements Backend {
  readonly provider = "ollama";
  readonly name: string;
  private currentModel: string;
  private readonly base: string;
  private readonly windows = new Map<string, Promise<number | undefined>>();

  private readonly options: Omit<OllamaOptions, "apiKey">;
  readonly #apiKey: Secret | undefined;

  constructor(options: OllamaOptions) {
    const { apiKey, ...rest } = options;
    this.options = rest;
    this.#apiKey = Secret.of(apiKey);
    this.name = options.name ?? "ollama";
    this.currentModel = options.model;
    this.base = (options.baseUrl ?? "http://localhost:11434").replace(/\/+$/, "");
  }

  get model(): string {
    return this.currentModel;
  }

  setModel(model: string): void {
    this.currentModel = model;
  }

  private headers(): Record<string, string> {
    return {
      ...(this.#apiKey && { authorization: `Bearer ${this.#apiKey.reveal()}` }),
      ...this.options.headers,
    };
  }

  chatStream(
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams = {},
    signal?: AbortSignal,
  ): AsyncIterableIterator<StreamEvent> {
    const body = ollamaRequestBody(this.currentModel, messages, tools, params, this.options);
    const open = async () => {
      const res = await send(this.name, `${this.base}/api/chat`, { body, headers: this.headers(), signal });
      if (res.status < 200 || res.status > 299) throw await errorFromResponse(this.name, res, signal);
      return res.body;
    };
    return new EventStream(this.name, open, readLines, new OllamaDecoder(this.name), signal);
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const tags = (await getJson(this.name, `${this.base}/api/tags`, this.headers(), signal)) as {
      models?: Array<{ name: string }>;
    };
    return (tags.models ?? []).map((m) => ({ id: m.name }));
  }

  /** `num_ctx` when configured (what is allocated); otherwise the trained maximum from /api/show. */
  contextLength(signal?: AbortSignal): Promise<number | undefined> {
    if (this.options.numCtx !== undefined) return Promise.resolve(this.options.numCtx);
    const model = this.currentModel;
    let known = this.windows.get(model);
    if (!known) {
      known = postJson(this.name, `${this.base}/api/show`, { model }, this.headers(), signal).then((show) => {
        const info = (show as { model_info?: Record<string, unknown> }).model_info ?? {};
        const arch = info["general.architecture"];
        const window =
          info[`${arch}.context_length`] ??
          Object.entries(info).find(([k]) => k.endsWith(".context_length"))?.[1];
        return typeof window === "number" ? window : undefined;
      });
      this.windows.set(model, known);
      known.catch(() => this.windows.delete(model));
    }
    return known;
  }
}
