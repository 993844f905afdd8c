import { AuthError } from "../../errors.js";
import { readText } from "../../http/http-request.js";
import { SharedWork } from "../../http/shared-work.js";
import { readSse, type SseItem } from "../../http/sse-reader.js";
import type { GenerationParams, Message, ModelInfo, Tool } from "../../types.js";
import { AnthropicDecoder } from "../anthropic/decoder.js";
import { type AnthropicBodyOptions, anthropicRequestBody } from "../anthropic/request-body.js";
import { type ChatRequest, HttpBackend, type HttpBackendOptions } from "../http-backend.js";
import { OpenAiDecoder } from "../openai/decoder.js";
import { openAiRequestBody } from "../openai/request-body.js";
import { ResponsesDecoder } from "../responses/decoder.js";
import { responsesRequestBody } from "../responses/request-body.js";
import { COPILOT_HEADERS, githubApiUrl, githubHost } from "./copilot-headers.js";
import { type CopilotModel, chatModels, endpointFor, modelInfoOf } from "./copilot-models.js";
import { CopilotSession } from "./copilot-session.js";
import { findGithubToken, pluginTokenFiles } from "./github-token.js";

export interface CopilotOptions extends AnthropicBodyOptions, HttpBackendOptions {
  /** The GitHub account's site: https://github.com (default) or a GitHub Enterprise Cloud URL. */
  githubUrl?: string;
  /** The REST API that hands out Copilot tokens; by default api.HOST of `githubUrl`. */
  githubApiUrl?: string;
  /**
   * `apiKey` is the GitHub token to exchange. Without one, the token `ollie login copilot` stored for the
   * host, else the one a Copilot editor plugin stored. `baseUrl` overrides the Copilot API the exchange
   * names.
   */
  apiKey?: HttpBackendOptions["apiKey"];
  /** Where tokens are looked for (tests point it at a temporary home). */
  env?: NodeJS.ProcessEnv;
  /** Ollie's credential file, when not the default. */
  storeFile?: string;
  /** The clock Copilot tokens are renewed by (tests move it forward). */
  now?: () => number;
}

/**
 * GitHub Copilot's chat API: a GitHub login exchanged for short-lived Copilot tokens, and each model
 * spoken to through the API its entry in Copilot's model list names — chat completions, Anthropic messages
 * for Claude models, Responses for the gpt-5/codex family — with the request builders and decoders of
 * those providers. `X-Initiator` says `agent` when the turn follows a tool result, as editors do, so that
 * only the user's prompts count as premium requests.
 */
export class CopilotBackend extends HttpBackend<CopilotOptions, SseItem> {
  readonly provider = "copilot";
  private readonly session: CopilotSession;
  private catalogue: CopilotModel[] | undefined;
  private readonly listing: SharedWork<CopilotModel[]>;
  private readonly enabled = new Set<string>();

  constructor(options: CopilotOptions) {
    super(options, { name: "copilot", baseUrl: options.baseUrl ?? "" });
    const githubUrl = (options.githubUrl ?? "https://github.com").replace(/\/+$/, "");
    const host = githubHost(githubUrl);
    this.listing = new SharedWork(this.source, "reading Copilot's model list", (signal) =>
      this.listModels(signal),
    );
    this.session = new CopilotSession({
      source: this.source,
      githubApiUrl: (options.githubApiUrl ?? githubApiUrl(githubUrl)).replace(/\/+$/, ""),
      headers: () => this.editorHeaders(),
      ...(options.now && { now: options.now }),
      githubToken: async () => {
        const key = this.apiKey();
        if (key !== undefined) return key;
        const found = await findGithubToken(host, {
          ...(options.env && { env: options.env }),
          ...(options.storeFile && { storeFile: options.storeFile }),
        });
        if (found) return found.token;
        throw new AuthError({
          ...this.source,
          providerMessage: `no GitHub login for ${host}: run \`ollie login copilot\` (also looked in ${pluginTokenFiles(options.env).join(", ")})`,
        });
      },
    });
  }

  private editorHeaders(): Record<string, string> {
    return { ...COPILOT_HEADERS, ...this.options.headers };
  }

  protected async headers(signal?: AbortSignal): Promise<Record<string, string>> {
    const { token } = await this.session.token(signal);
    return { ...this.editorHeaders(), authorization: `Bearer ${token}` };
  }

  /** Copilot tokens expire within the hour: a refused one is exchanged again, once. */
  protected override async renewCredential(
    error: AuthError,
    sent: Readonly<Record<string, string>>,
  ): Promise<boolean> {
    if (error.status !== 401 && error.status !== 403) return false;
    const refused = sent.authorization?.replace(/^Bearer /, "");
    if (refused !== undefined) this.session.invalidate(refused);
    return true;
  }

  protected override explainRefusal(error: AuthError): string | undefined {
    if (error.status === 402)
      return `Copilot quota used up (premium requests or the free plan's allowance): ${error.providerMessage}`;
    return undefined;
  }

  /** The Copilot API: the profile's `url`, else what the token exchange named. */
  private async apiUrl(signal?: AbortSignal): Promise<string> {
    return this.base !== "" ? this.base : (await this.session.token(signal)).apiUrl;
  }

  private async listModels(signal?: AbortSignal): Promise<CopilotModel[]> {
    const res = await this.sendAuthorized(`${await this.apiUrl(signal)}/models`, undefined, signal);
    return chatModels(JSON.parse(await readText(res.body, signal)));
  }

  /** The model list, fetched once (a failed fetch is tried again next time). */
  private async modelEntries(signal?: AbortSignal): Promise<CopilotModel[]> {
    this.catalogue ??= await this.listing.run(signal);
    return this.catalogue;
  }

  /**
   * What the model list says of `model`. A list that cannot be had (a server error, say) does not stop the
   * chat: the model goes to the API its name suggests, with a warning. Refusals and aborts still stop it.
   */
  private async entryOf(model: string, signal?: AbortSignal): Promise<CopilotModel | undefined> {
    try {
      return (await this.modelEntries(signal)).find((m) => m.id === model);
    } catch (err) {
      if (err instanceof AuthError || signal?.aborted) throw err;
      this.warn(
        `Copilot's model list could not be read (${(err as Error).message}): ${model} goes by its name`,
      );
      return undefined;
    }
  }

  /** Models that need their terms accepted first are enabled, once, as Copilot's own clients do. */
  private async enablePolicy(model: CopilotModel | undefined, signal?: AbortSignal): Promise<void> {
    const state = model?.policy?.state;
    if (!model || state === undefined || state === "enabled" || this.enabled.has(model.id)) return;
    const url = `${await this.apiUrl(signal)}/models/${encodeURIComponent(model.id)}/policy`;
    const res = await this.sendAuthorized(url, { state: "enabled" }, signal, {
      "openai-intent": "chat-policy",
      "x-interaction-type": "chat-policy",
    });
    await readText(res.body, signal);
    this.enabled.add(model.id);
    this.warn(`enabled model ${model.id} for this Copilot account (it was ${state})`);
  }

  protected async chatRequest(
    model: string,
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams,
    signal?: AbortSignal,
  ): Promise<ChatRequest<SseItem>> {
    // The token first: a failure to get one is the chat's failure, not the model list's.
    const base = await this.apiUrl(signal);
    const entry = await this.entryOf(model, signal);
    await this.enablePolicy(entry, signal);
    const headers = {
      accept: "text/event-stream",
      "openai-intent": "conversation-agent",
      "x-initiator": messages.at(-1)?.role === "user" ? "user" : "agent",
    };
    switch (endpointFor(model, entry)) {
      case "/v1/messages":
        return {
          url: `${base}/v1/messages`,
          body: anthropicRequestBody(model, messages, tools, params, this.options, this.warn),
          read: readSse,
          decoder: new AnthropicDecoder(this.source),
          headers: { ...headers, "anthropic-version": "2023-06-01" },
          subscription: true,
        };
      case "/responses":
        return {
          url: `${base}/responses`,
          body: responsesRequestBody(model, messages, tools, params, { provider: this.provider }, this.warn),
          read: readSse,
          decoder: new ResponsesDecoder(this.source),
          headers,
          subscription: true,
        };
      case "/chat/completions":
        return {
          url: `${base}/chat/completions`,
          body: openAiRequestBody(
            model,
            messages,
            tools,
            params,
            { maxTokensField: "max_tokens" },
            this.warn,
          ),
          read: readSse,
          decoder: new OpenAiDecoder(this.source, { mergeChoices: true }),
          headers,
          subscription: true,
        };
    }
  }

  /** The chat models of the account, asked afresh (and kept for choosing each model's API). */
  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    this.catalogue = await this.listing.run(signal);
    return this.catalogue.map(modelInfoOf);
  }
}
