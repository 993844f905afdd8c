import type { Backend, ServerAddress } from "../backend.js";
import { Secret } from "../config/secret.js";
import { AuthError, type ErrorSource } from "../errors.js";
import { type HttpResponse, sendOk } from "../http/http-request.js";
import { serverOf } from "../http/server-address.js";
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
  /** Headers of this request only, over the backend's own (who started the turn, say). */
  headers?: Record<string, string>;
  /** Paid for by a subscription: its usage reports a cost of 0 USD. */
  subscription?: boolean;
}

/**
 * What the providers share: the model an agent may switch, the credential kept as a Secret, the request
 * that opens a stream (any status outside 2xx becomes a typed error, whatever its content type; a refusal
 * of the credential is retried once when the provider could renew it), and context windows looked up once
 * per model — a failed lookup is forgotten, so the next call tries again.
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

  /** The base URL's host and port (its credentials, path and query left out); undefined with no base. */
  get server(): ServerAddress | undefined {
    return serverOf(this.base);
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

  /** The headers of every request; a provider whose credential expires may fetch a fresh one first. */
  protected abstract headers(signal?: AbortSignal): Record<string, string> | Promise<Record<string, string>>;

  /**
   * Called once when a request sent with headers `sent` is refused with `error`: resolves true when the
   * credential was renewed and the request is worth sending again. By default credentials cannot be
   * renewed. (A failure to get a credential at all, before anything was sent, is not a refusal.)
   */
  protected async renewCredential(
    _error: AuthError,
    _sent: Readonly<Record<string, string>>,
    _signal?: AbortSignal,
  ): Promise<boolean> {
    return false;
  }

  /**
   * Says a refusal of the credential in words that tell the user what to do (sign in again, wait for the
   * quota); undefined keeps the provider's own words.
   */
  protected explainRefusal(_error: AuthError): string | undefined {
    return undefined;
  }

  private explained(error: unknown): unknown {
    if (!(error instanceof AuthError)) return error;
    const message = this.explainRefusal(error);
    if (message === undefined) return error;
    return new AuthError({
      provider: error.provider,
      ...(error.profile !== undefined && { profile: error.profile }),
      ...(error.status !== undefined && { status: error.status }),
      providerMessage: message,
      ...(error.requestId !== undefined && { requestId: error.requestId }),
      responseHeaders: error.responseHeaders,
    });
  }

  /** Sends a request with the current headers, renewing the credential and trying again once if refused. */
  protected async sendAuthorized(
    url: string,
    body: unknown,
    signal?: AbortSignal,
    extraHeaders?: Record<string, string>,
  ): Promise<HttpResponse> {
    let sent: Record<string, string> | undefined;
    const attempt = async () => {
      sent = undefined;
      const headers = { ...(await this.headers(signal)), ...extraHeaders };
      sent = headers;
      return sendOk(this.source, url, { ...(body !== undefined && { body }), headers, signal });
    };
    try {
      try {
        return await attempt();
      } catch (err) {
        if (err instanceof AuthError && sent && (await this.renewCredential(err, sent, signal)))
          return await attempt();
        throw err;
      }
    } catch (err) {
      throw this.explained(err);
    }
  }

  /** Reports a setting a request had to change, once per distinct message. */
  protected readonly warn = (message: string): void => {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    const text = `${this.name}: ${message}`;
    if (this.options.onWarning) this.options.onWarning(text);
    else process.emitWarning(text, { code: "OLLIE_BACKEND_REQUEST" });
  };

  /** The request for one reply; a provider that must ask something first (a model's endpoint) may. */
  protected abstract chatRequest(
    model: string,
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams,
    signal?: AbortSignal,
  ): ChatRequest<I> | Promise<ChatRequest<I>>;

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
    const open = async () => {
      const request = await this.chatRequest(model, messages, tools, params, signal);
      request.decoder.builder.stamp({ provider: this.provider, model });
      if (request.subscription) request.decoder.builder.billBySubscription();
      const body = typeof request.body === "function" ? await request.body(signal) : request.body;
      const res = await this.sendAuthorized(request.url, body, signal, request.headers);
      return { body: res.body, read: request.read, decoder: request.decoder };
    };
    return new EventStream(this.source, open, signal);
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
