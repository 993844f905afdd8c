import { randomUUID } from "node:crypto";
import type { AuthError } from "../../errors.js";
import { readText } from "../../http/http-request.js";
import { type EventStreamMessage, readAwsEventStream } from "../../stream/aws-event-stream.js";
import { estimateTokens } from "../../tokens/token-estimate.js";
import type { GenerationParams, Message, ModelInfo, Tool } from "../../types.js";
import { type ChatRequest, HttpBackend, type HttpBackendOptions } from "../http-backend.js";
import { type KiroAccess, KiroCredentials, SIGN_IN_AGAIN } from "./kiro-credentials.js";
import { KiroDecoder } from "./kiro-decoder.js";
import { kiroRequestBody } from "./kiro-request.js";
import { isObject, kiroIdeAgent } from "./kiro-services.js";

export interface KiroOptions extends HttpBackendOptions {
  /**
   * The Q API, https://q.REGION.amazonaws.com by default. `apiKey`, when given, is a Kiro API key
   * (`ksk_…`) or an access token, sent as it is and never renewed.
   */
  baseUrl?: string;
  /** The region of the Q API and, unless the login names its own, of SSO OIDC (default us-east-1). */
  region?: string;
  /** Kiro's desktop auth service, which renews social logins (https://prod.us-east-1.auth.desktop.kiro.dev). */
  authUrl?: string;
  /** AWS SSO OIDC, which renews Builder ID / IdC logins (https://oidc.REGION.amazonaws.com). */
  oidcUrl?: string;
  /** The one token file to use, instead of Ollie's credential store and then Kiro's `kiro-auth-token.json`. */
  tokenFile?: string;
  /** Where files are looked for (`HOME`, `XDG_DATA_HOME`): tests point it at a temporary home. */
  env?: NodeJS.ProcessEnv;
  /** The home of Kiro's `.aws/sso/cache`; `env.HOME` by default. */
  home?: string;
  /** Ollie's credential file, when not the default. */
  storeFile?: string;
  /** The clock tokens expire by (tests move it forward). */
  now?: () => number;
}

/** The context window of Kiro's Claude models when the model list does not say. */
const DEFAULT_WINDOW = 200_000;
/** The AWS SDK version Kiro's IDE reports in its user agents (what gateways send). */
const SDK_VERSION = "1.0.34";
/** Kiro's answer to an expired or revoked token (kiro.rs renews on exactly this). */
const BEARER_INVALID = /(bearer|security) token included in the request is (invalid|expired)/i;

interface ListedModel {
  modelId?: unknown;
  tokenLimits?: { maxInputTokens?: unknown; maxOutputTokens?: unknown };
  supportedInputTypes?: unknown;
}

/**
 * Kiro (AWS CodeWhisperer / Amazon Q Developer) with the Kiro IDE's login or `ollie login kiro`'s:
 * `generateAssistantResponse` answered in AWS event-stream frames, paid for by the subscription's credits.
 * The login is renewed before it expires and once when the API refuses it.
 */
export class KiroBackend extends HttpBackend<KiroOptions, EventStreamMessage> {
  readonly provider = "kiro";
  private readonly credentials: KiroCredentials;
  private readonly ideAgent = kiroIdeAgent();

  constructor(options: KiroOptions) {
    const region = options.region ?? "us-east-1";
    super(options, { name: "kiro", baseUrl: `https://q.${region}.amazonaws.com` });
    this.credentials = new KiroCredentials({
      source: this.source,
      region,
      authUrl: (options.authUrl ?? "https://prod.us-east-1.auth.desktop.kiro.dev").replace(/\/+$/, ""),
      ...(options.oidcUrl !== undefined && { oidcUrl: options.oidcUrl.replace(/\/+$/, "") }),
      ...(options.tokenFile !== undefined && { tokenFile: options.tokenFile }),
      ...(options.env !== undefined && { env: options.env }),
      ...(options.home !== undefined && { home: options.home }),
      ...(options.storeFile !== undefined && { storeFile: options.storeFile }),
      ...(options.now !== undefined && { now: options.now }),
      userAgent: this.ideAgent,
      warn: this.warn,
    });
  }

  /** The token, and the profile a social login's requests name; an API key has none. */
  private async access(signal?: AbortSignal): Promise<KiroAccess> {
    const key = this.apiKey();
    return key !== undefined ? { accessToken: key } : this.credentials.access(signal);
  }

  protected async headers(signal?: AbortSignal): Promise<Record<string, string>> {
    const { accessToken } = await this.access(signal);
    const os = process.platform === "darwin" ? "macos" : process.platform;
    return {
      authorization: `Bearer ${accessToken}`,
      ...(accessToken.startsWith("ksk_") && { tokentype: "API_KEY" }),
      "x-amzn-codewhisperer-optout": "true",
      "x-amzn-kiro-agent-mode": "vibe",
      "x-amz-user-agent": `aws-sdk-js/${SDK_VERSION} ${this.ideAgent}`,
      "user-agent": `aws-sdk-js/${SDK_VERSION} ua/2.1 os/${os} lang/js md/nodejs#${process.versions.node} api/codewhispererstreaming#${SDK_VERSION} m/E ${this.ideAgent}`,
      "amz-sdk-invocation-id": randomUUID(),
      "amz-sdk-request": "attempt=1; max=3",
      // Kiro may keep a finished stream open; a connection of its own per request is closed with it.
      connection: "close",
      ...this.options.headers,
    };
  }

  /** A 401, or a 403 saying the token is invalid or expired, is worth one renewal (not an API key's). */
  protected override async renewCredential(
    error: AuthError,
    sent: Readonly<Record<string, string>>,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (this.apiKey() !== undefined) return false;
    if (error.status !== 401 && !(error.status === 403 && BEARER_INVALID.test(error.providerMessage)))
      return false;
    await this.credentials.renew(sent.authorization?.replace(/^Bearer /, ""), signal);
    return true;
  }

  /** Refusals said in words that tell what to do: sign in again, or wait for the quota. */
  protected override explainRefusal(error: AuthError): string | undefined {
    if (error.status === undefined) return undefined;
    if (error.status === 401 || (error.status === 403 && BEARER_INVALID.test(error.providerMessage)))
      return `Kiro refused the login (${error.providerMessage}): ${SIGN_IN_AGAIN}`;
    // 402, and 400/429 with MONTHLY_REQUEST_COUNT: the plan's requests are used up until it renews.
    if (error.status !== 403)
      return `Kiro's request quota is used up (${error.providerMessage}): wait for the plan's next period or raise its limit`;
    return undefined;
  }

  protected async chatRequest(
    model: string,
    messages: readonly Message[],
    tools: readonly Tool[],
    params: GenerationParams,
    signal?: AbortSignal,
  ): Promise<ChatRequest<EventStreamMessage>> {
    const { profileArn } = await this.access(signal);
    // Only for estimating usage, which most replies need: a failed lookup must not fail the chat.
    const window = await this.contextLengthOf(model, signal).catch(() => undefined);
    const { body, toolNames } = kiroRequestBody(
      model,
      messages,
      tools,
      params,
      profileArn !== undefined ? { profileArn } : {},
      this.warn,
    );
    return {
      url: `${this.base}/generateAssistantResponse`,
      body,
      read: readAwsEventStream,
      decoder: new KiroDecoder(this.source, {
        toolNames,
        contextWindow: window ?? DEFAULT_WINDOW,
        promptEstimate: estimateTokens(messages, tools),
      }),
      subscription: true,
    };
  }

  async models(signal?: AbortSignal): Promise<ModelInfo[]> {
    const { profileArn } = await this.access(signal);
    const query = new URLSearchParams({
      origin: "AI_EDITOR",
      ...(profileArn !== undefined && { profileArn }),
    });
    const out: ModelInfo[] = [];
    const seen = new Set<string>();
    // A page token seen before would go round for ever: stop there.
    for (let nextToken: string | undefined; ; ) {
      if (nextToken !== undefined) query.set("nextToken", nextToken);
      const res = await this.sendAuthorized(`${this.base}/ListAvailableModels?${query}`, undefined, signal);
      const page: unknown = JSON.parse(await readText(res.body, signal));
      if (!isObject(page)) return out;
      for (const m of Array.isArray(page.models) ? (page.models as ListedModel[]) : []) {
        const info = modelInfo(m);
        if (info) out.push(info);
      }
      nextToken = typeof page.nextToken === "string" && page.nextToken !== "" ? page.nextToken : undefined;
      if (nextToken === undefined || seen.has(nextToken)) return out;
      seen.add(nextToken);
    }
  }

  protected override async lookUpContextLength(
    model: string,
    signal?: AbortSignal,
  ): Promise<number | undefined> {
    return (await super.lookUpContextLength(model, signal)) ?? DEFAULT_WINDOW;
  }
}

function modelInfo(m: ListedModel): ModelInfo | undefined {
  if (typeof m.modelId !== "string") return undefined;
  const info: ModelInfo = { id: m.modelId };
  const { maxInputTokens, maxOutputTokens } = m.tokenLimits ?? {};
  if (typeof maxInputTokens === "number") info.contextLength = maxInputTokens;
  if (typeof maxOutputTokens === "number") info.maxOutputTokens = maxOutputTokens;
  if (Array.isArray(m.supportedInputTypes))
    info.vision = m.supportedInputTypes.some((t) => typeof t === "string" && /image/i.test(t));
  return info;
}
