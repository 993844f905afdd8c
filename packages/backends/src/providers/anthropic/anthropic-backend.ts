import type { Backend } from "../../backend.js";
import { Secret } from "../../config/secret.js";
import { errorFromResponse, getJson, send } from "../../http/http-request.js";
import { readSse } from "../../http/sse-reader.js";
import { EventStream } from "../../stream/event-stream.js";
import type { GenerationParams, Message, ModelInfo, StreamEvent, Tool } from "../../types.js";
import { AnthropicDecoder } from "./decoder.js";
import { type AnthropicBodyOptions, anthropicRequestBody } from "./request-body.js";

export interface AnthropicOptions extends AnthropicBodyOptions {
  name?: string;
  /** Default https://api.anthropic.com. */
  baseUrl?: string;
  model: string;
  /** Held as a Secret: it never shows when the backend is printed. */
  apiKey?: string | Secret;
  /** Extra headers (anthropic-beta, for instance). */
  headers?: Record<string, string>;
}

/** The context window of Claude models when the model list does not say. */
const CLAUDE_WINDOW = 200_000;

/** Anthropic's messages API: thinking with a budget, prompt caching, tool use. */
export class AnthropicBackend implements Backend {
  readonly provider = "anthropic";
  readonly name: string;
  private currentModel: string;
  private readonly base: string;
  private readonly windows = new Map<string, Promise<number | undefined>>();

  private readonly options: Omit<AnthropicOptions, "apiKey">;
  readonly #apiKey: Secret | undefined;

  constructor(options: AnthropicOptions) {
    const { apiKey, ...rest } = options;
    this.options = rest;
    this.#apiKey = Secret.of(apiKey);
    this.name = options.name ?? "anthropic";
    this.currentModel = options.model;
    this.base = (options.baseUrl ?? "https://api.anthropic.com").replace(/\/+$/, "");
  }

  get model(): string {
    return this.currentModel;
  }

  setModel(model: string): void {
    this.currentModel = model;
  }

  private headers(): Record<string, string> {
    return {
      "anthropic-version": "2023-06-01",
      accept: "text/event-stream",
      ...(this.#apiKey && { "x-api-key": this.#apiKey.reveal() }),
      ...this.options.headers,
    };
  }

  chatStream(
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams = {},
    signal?: AbortSignal,
  ): AsyncIterableIterator<StreamEvent> {
    const body = anthropicRequestBody(this.currentModel, messages, tools, params, this.options);
    const open = async () => {
      const res = await send(this.name, `${this.base}/v1/messages`, {
        body,
        headers: this.headers(),
        signal,
      });
      if (res.status < 200 || res.status > 299) throw await errorFromResponse(this.name, res, signal);
      return res.body;
    };
    return new EventStream(this.name, open, readSse, new AnthropicDecoder(this.name), signal);
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const list = (await getJson(this.name, `${this.base}/v1/models?limit=1000`, this.headers(), signal)) as {
      data?: Array<{ id: string; max_input_tokens?: number }>;
    };
    return (list.data ?? []).map((m) =>
      m.max_input_tokens ? { id: m.id, contextLength: m.max_input_tokens } : { id: m.id },
    );
  }

  contextLength(signal?: AbortSignal): Promise<number | undefined> {
    const model = this.currentModel;
    let known = this.windows.get(model);
    if (!known) {
      known = this.models(signal).then(
        (list) =>
          list.find((m) => m.id === model)?.contextLength ??
          (model.startsWith("claude") ? CLAUDE_WINDOW : undefined),
      );
      this.windows.set(model, known);
      known.catch(() => this.windows.delete(model));
    }
    return known;
  }
}
