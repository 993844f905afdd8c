import type { Backend } from "../../backend.js";
import { Secret } from "../../config/secret.js";
import { errorFromResponse, getJson, send } from "../../http/http-request.js";
import { readSse } from "../../http/sse-reader.js";
import { EventStream } from "../../stream/event-stream.js";
import type { GenerationParams, Message, ModelInfo, StreamEvent, Tool } from "../../types.js";
import { OpenAiDecoder } from "./decoder.js";
import { type OpenAiBodyOptions, openAiRequestBody } from "./request-body.js";

export interface OpenAiOptions extends OpenAiBodyOptions {
  /** The profile name (default "openai"). */
  name?: string;
  /** Base URL including the version, e.g. https://api.openai.com/v1 or http://localhost:11434/v1. */
  baseUrl: string;
  model: string;
  /** Held as a Secret: it never shows when the backend is printed. */
  apiKey?: string | Secret;
  /** Extra headers on every request (OpenRouter's HTTP-Referer and X-Title, for instance). */
  headers?: Record<string, string>;
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
export class OpenAiBackend implements Backend {
  readonly provider = "openai";
  readonly name: string;
  private currentModel: string;
  private readonly base: string;
  private readonly windows = new Map<string, Promise<number | undefined>>();

  private readonly options: Omit<OpenAiOptions, "apiKey">;
  readonly #apiKey: Secret | undefined;

  constructor(options: OpenAiOptions) {
    const { apiKey, ...rest } = options;
    this.options = rest;
    this.#apiKey = Secret.of(apiKey);
    this.name = options.name ?? "openai";
    this.currentModel = options.model;
    this.base = options.baseUrl.replace(/\/+$/, "");
  }

  get model(): string {
    return this.currentModel;
  }

  setModel(model: string): void {
    this.currentModel = model;
  }

  private headers(): Record<string, string> {
    return {
      accept: "text/event-stream",
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
    const maxTokensField =
      this.options.maxTokensField ??
      (/api\.openai\.com/.test(this.base) ? "max_completion_tokens" : "max_tokens");
    const body = openAiRequestBody(this.currentModel, messages, tools, params, {
      ...this.options,
      maxTokensField,
    });
    const open = async () => {
      const res = await send(this.name, `${this.base}/chat/completions`, {
        body,
        headers: this.headers(),
        signal,
      });
      // Error responses may come with an SSE content type too: the status decides.
      if (res.status < 200 || res.status > 299) throw await errorFromResponse(this.name, res, signal);
      return res.body;
    };
    return new EventStream(this.name, open, readSse, new OpenAiDecoder(this.name), signal);
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const list = (await getJson(this.name, `${this.base}/models`, this.headers(), signal)) as {
      data?: ModelListEntry[];
    };
    return (list.data ?? []).map((m) => {
      const window = m.context_length ?? m.top_provider?.context_length ?? m.max_model_len ?? m.meta?.n_ctx;
      return window === undefined ? { id: m.id } : { id: m.id, contextLength: window };
    });
  }

  contextLength(signal?: AbortSignal): Promise<number | undefined> {
    const model = this.currentModel;
    let known = this.windows.get(model);
    if (!known) {
      known = this.models(signal).then((list) => list.find((m) => m.id === model)?.contextLength);
      this.windows.set(model, known);
      known.catch(() => this.windows.delete(model));
    }
    return known;
  }
}
