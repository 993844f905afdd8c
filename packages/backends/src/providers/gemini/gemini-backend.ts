import type { Backend } from "../../backend.js";
import { Secret } from "../../config/secret.js";
import { errorFromResponse, getJson, send } from "../../http/http-request.js";
import { readSse } from "../../http/sse-reader.js";
import { EventStream } from "../../stream/event-stream.js";
import type { GenerationParams, Message, ModelInfo, StreamEvent, Tool } from "../../types.js";
import { GeminiDecoder } from "./decoder.js";
import { geminiRequestBody } from "./request-body.js";

export interface GeminiOptions {
  name?: string;
  /** Default https://generativelanguage.googleapis.com. */
  baseUrl?: string;
  model: string;
  /** Held as a Secret: it never shows when the backend is printed. */
  apiKey?: string | Secret;
  headers?: Record<string, string>;
}

/** Google's Gemini API (streamGenerateContent with SSE). */
export class GeminiBackend implements Backend {
  readonly provider = "gemini";
  readonly name: string;
  private currentModel: string;
  private readonly base: string;
  private readonly windows = new Map<string, Promise<number | undefined>>();

  private readonly options: Omit<GeminiOptions, "apiKey">;
  readonly #apiKey: Secret | undefined;

  constructor(options: GeminiOptions) {
    const { apiKey, ...rest } = options;
    this.options = rest;
    this.#apiKey = Secret.of(apiKey);
    this.name = options.name ?? "gemini";
    this.currentModel = options.model;
    this.base = (options.baseUrl ?? "https://generativelanguage.googleapis.com").replace(/\/+$/, "");
  }

  get model(): string {
    return this.currentModel;
  }

  setModel(model: string): void {
    this.currentModel = model;
  }

  private headers(): Record<string, string> {
    return { ...(this.#apiKey && { "x-goog-api-key": this.#apiKey.reveal() }), ...this.options.headers };
  }

  chatStream(
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams = {},
    signal?: AbortSignal,
  ): AsyncIterableIterator<StreamEvent> {
    const url = `${this.base}/v1beta/models/${encodeURIComponent(this.currentModel)}:streamGenerateContent?alt=sse`;
    const open = async () => {
      const res = await send(this.name, url, {
        body: geminiRequestBody(messages, tools, params),
        headers: this.headers(),
        signal,
      });
      // Error responses may come with an SSE content type too: the status decides.
      if (res.status < 200 || res.status > 299) throw await errorFromResponse(this.name, res, signal);
      return res.body;
    };
    return new EventStream(this.name, open, readSse, new GeminiDecoder(this.name), signal);
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const list = (await getJson(
      this.name,
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
