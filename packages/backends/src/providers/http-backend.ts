import type { Backend } from "../backend.js";
import { Secret } from "../config/secret.js";
import type { ErrorSource } from "../errors.js";
import { sendOk } from "../http/http-request.js";
import { EventStream, type FrameReader, type WireDecoder } from "../stream/event-stream.js";
import type { GenerationParams, Message, ModelInfo, StreamEvent, Tool } from "../types.js";

/** What every HTTP provider is configured with. */
export interface HttpBackendOptions {
  /** The profile name; the provider's name by default. */
  name?: string;
  baseUrl?: string;
  model: string;
  /** Held as a Secret: it never shows when the backend is printed. */
  apiKey?: string | Secret;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /**
   * Told, once per distinct message, when a request leaves out or changes a setting the provider would
   * refuse (temperature with thinking on Anthropic, say). Default: `process.emitWarning`.
   */
  onWarning?: (message: string) => void;
}

/** One streaming chat request: where it goes, what it says, and how its response is read. */
export interface ChatRequest<I> {
  url: string;
  /** The body, or how to make it when it needs the provider first (asked when the request opens). */
  body: Record<string, unknown> | ((signal?: AbortSignal) => Promise<Record<string, unknown>>);
  read: FrameReader<I>;
  decoder: WireDecoder<I>;
}

/**
 * What the providers share: the model an agent may switch, the credential kept as a Secret, the request
 * that opens a stream (any status outside 2xx becomes a typed error, whatever its content type), and
 * context windows looked up once per model — a failed lookup is forgotten, so the next call tries again.
 */
export abstract class HttpBackend<O extends HttpBackendOptions, I> implements Backend {
  abstract readonly provider: string;
  readonly name: string;
  protected readonly base: string;
  protected readonly options: Omit<O, "apiKey">;
  readonly #apiKey: Secret | undefined;
  private currentModel: string;
  private readonly windows = new Map<string, Promise<number | undefined>>();
  private readonly warned = new Set<string>();

  constructor(options: O, defaults: { name: string; baseUrl: string }) {
    const { apiKey, ...rest } = options;
    this.options = rest;
    this.#apiKey = Secret.of(apiKey);
    this.name = options.name ?? defaults.name;
    this.currentModel = options.model;
    this.base = (options.baseUrl ?? defaults.baseUrl).replace(/\/+$/, "");
  }

  get model(): string {
    return this.currentModel;
  }

  setModel(model: string): void {
    this.currentModel = model;
  }

  /** What this backend's errors name: the kind of provider, and the name it was configured with. */
  protected get source(): ErrorSource {
    return { provider: this.provider, profile: this.name };
  }

  /** The credential, for the provider's header only. */
  protected apiKey(): string | undefined {
    return this.#apiKey?.reveal();
  }

  protected abstract headers(): Record<string, string>;

  /** Reports a setting a request had to change, once per distinct message. */
  protected readonly warn = (message: string): void => {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    const text = `${this.name}: ${message}`;
    if (this.options.onWarning) this.options.onWarning(text);
    else process.emitWarning(text, { code: "OLLIE_BACKEND_REQUEST" });
  };

  protected abstract chatRequest(
    model: string,
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams,
  ): ChatRequest<I>;

  /** The context window of `model`, asked of the provider: by default, what its model list says. */
  protected async lookUpContextLength(model: string, signal?: AbortSignal): Promise<number | undefined> {
    return (await this.models(signal)).find((m) => m.id === model)?.contextLength;
  }

  abstract models(signal?: AbortSignal): Promise<ModelInfo[]>;

  chatStream(
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams = {},
    signal?: AbortSignal,
  ): AsyncIterableIterator<StreamEvent> {
    const model = this.currentModel;
    const request = this.chatRequest(model, messages, tools, params);
    request.decoder.builder.stamp({ provider: this.provider, model });
    const open = async () => {
      const body = typeof request.body === "function" ? await request.body(signal) : request.body;
      const res = await sendOk(this.source, request.url, {
        body,
        headers: this.headers(),
        signal,
      });
      return res.body;
    };
    return new EventStream(this.source, open, request.read, request.decoder, signal);
  }

  contextLength(signal?: AbortSignal): Promise<number | undefined> {
    return this.contextLengthOf(this.currentModel, signal);
  }

  /** The context window of `model`, looked up once (a failed lookup is tried again next time). */
  protected contextLengthOf(model: string, signal?: AbortSignal): Promise<number | undefined> {
    let known = this.windows.get(model);
    if (!known) {
      known = this.lookUpContextLength(model, signal);
      this.windows.set(model, known);
      known.catch(() => this.windows.delete(model));
    }
    return known;
  }
}
