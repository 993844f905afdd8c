import { randomUUID } from "node:crypto";
import { frameBytes, json, type MockReply, type Rendered } from "../mock-reply.js";
import type { MockExchange, MockResponder, ProviderMock } from "../provider-mock.js";
import { isObject, type JsonObject } from "../rules/request-check.js";
import {
  type AuthAnswer,
  KiroAuth,
  type KiroAuthCounts,
  type KiroDeviceFlowOptions,
  type OidcCredentials,
  type SocialCredentials,
} from "./kiro-auth.js";
import {
  bearerInvalid,
  improperlyFormed,
  inputTooLong,
  type KiroStreamQuirks,
  kiroError,
  renderKiroFault,
  renderKiroStream,
} from "./kiro-render.js";
import { checkKiroBody, KIRO_MODEL_IDS } from "./kiro-rules.js";

export interface KiroMockOptions {
  /** `expiresIn` of every access token issued (default 3600). */
  accessTokenTtlSeconds?: number;
  /** Hand out a new refresh token on each refresh and retire the old one (default false). */
  rotateRefreshTokens?: boolean;
  /** The social account's profile ARN (default the one quoted in the design document). */
  profileArn?: string;
  /** The script of the SSO OIDC device flow. */
  deviceFlow?: KiroDeviceFlowOptions;
  /** The clock access tokens and device codes expire by (default `Date.now`; tests move it forward). */
  now?: () => number;
  /** Chat request bodies larger than this many bytes get "Input is too long." (default 1 000 000). */
  maxRequestBytes?: number;
  /** `meteringEvent.usage` of each reply, in credits (default 0.0421). */
  creditsPerReply?: number;
}

/** What the mock has been asked: the auth endpoints' counts, and the chat requests'. */
export interface KiroMockCounts extends KiroAuthCounts {
  chatRequests: number;
  /** Chat and list requests refused for an unknown or expired bearer token. */
  invalidBearer: number;
}

const DEFAULT_PROFILE_ARN = "arn:aws:codewhisperer:us-east-1:699475941385:profile/EHGA3GRVQMUK";
const SDK_TARGET = "AmazonCodeWhispererStreamingService.GenerateAssistantResponse";
const JSON_TYPES = ["application/json", "application/x-amz-json-1.0"];

/** The models ListAvailableModels reports besides the server's own (B.2, B.4.4). */
const CATALOGUE = [
  { modelId: "auto", modelName: "Auto", rateMultiplier: 1, maxOutputTokens: 64_000 },
  {
    modelId: "claude-sonnet-4.5",
    modelName: "Claude Sonnet 4.5",
    rateMultiplier: 1.3,
    maxOutputTokens: 64_000,
  },
  {
    modelId: "claude-haiku-4.5",
    modelName: "Claude Haiku 4.5",
    rateMultiplier: 0.4,
    maxOutputTokens: 64_000,
  },
  { modelId: "claude-opus-4.5", modelName: "Claude Opus 4.5", rateMultiplier: 2.2, maxOutputTokens: 32_000 },
];
const CATALOGUE_WINDOW = 200_000;

/**
 * Kiro (CodeWhisperer / Amazon Q Developer) as its clients see it, wire for wire (design document
 * wire-copilot-kiro.md, part B), mounted under a prefix of the mock server:
 *
 * - `POST /refreshToken` — the Kiro desktop auth service's social refresh;
 * - `POST /oidc/client/register`, `/oidc/device_authorization`, `/oidc/token` — AWS SSO OIDC;
 * - `POST /generateAssistantResponse` (or SDK-style `POST /` with `X-Amz-Target`) — the chat, answered
 *   with AWS event-stream frames;
 * - `GET /ListAvailableModels`, `GET /getUsageLimits`.
 *
 * Every request is recorded in the server's `requests` (auth ones with model ""). SSO OIDC answers its
 * errors (`authorization_pending`, `slow_down`, …) with HTTP 400, as the SDK model types them; the
 * document is unsure of the status and says clients read only `error`.
 */
export class KiroMock implements ProviderMock {
  private readonly auth: KiroAuth;
  private readonly profileArn: string;
  private readonly quirks: KiroStreamQuirks[] = [];
  private readonly chatCounts = { chatRequests: 0, invalidBearer: 0 };
  private creditsUsed = 0;

  constructor(private readonly options: KiroMockOptions = {}) {
    this.profileArn = options.profileArn ?? DEFAULT_PROFILE_ARN;
    this.auth = new KiroAuth({ ...options, profileArn: this.profileArn });
  }

  /** A snapshot of the counters. */
  get counts(): KiroMockCounts {
    return { ...this.auth.counts, ...this.chatCounts };
  }

  /** A social login the mock honours: refresh token, valid access token, profile ARN. */
  socialCredentials(): SocialCredentials {
    return this.auth.socialCredentials();
  }

  /** A registered SSO OIDC client with a refresh token and a valid access token. */
  oidcCredentials(): OidcCredentials {
    return this.auth.oidcCredentials();
  }

  /** Makes every access token issued so far expired: the next chat with one gets a 403. */
  expireAccessTokens(): void {
    this.auth.expireAccessTokens();
  }

  /**
   * Stream faults for the next chat requests answered from the script, one set per request in order
   * (a request refused by the rules or for its token uses none).
   */
  nextStreamQuirks(...quirks: KiroStreamQuirks[]): void {
    this.quirks.push(...quirks);
  }

  async handle(exchange: MockExchange, responder: MockResponder): Promise<boolean> {
    const route = `${exchange.method} ${exchange.path}`;
    const authAnswer = (answer: (body: unknown) => AuthAnswer) => {
      responder.record("");
      const { status, body, errorType } = answer(exchange.body);
      return this.send(responder, json(status, body, errorType ? { "x-amzn-errortype": errorType } : {}));
    };
    switch (route) {
      case "POST /refreshToken":
        await authAnswer((body) => this.auth.refreshSocial(body));
        return true;
      case "POST /oidc/client/register":
        await authAnswer((body) => this.auth.register(body));
        return true;
      case "POST /oidc/device_authorization":
        await authAnswer((body) => this.auth.authorizeDevice(body));
        return true;
      case "POST /oidc/token":
        await authAnswer((body) => this.auth.createToken(body));
        return true;
      case "POST /generateAssistantResponse":
        await this.chat(exchange, responder);
        return true;
      case "POST /":
        if (exchange.headers["x-amz-target"] !== SDK_TARGET) return false;
        await this.chat(exchange, responder);
        return true;
      case "GET /ListAvailableModels":
        await this.listModels(exchange, responder);
        return true;
      case "GET /getUsageLimits":
        await this.usageLimits(exchange, responder);
        return true;
      default:
        return false;
    }
  }

  private async chat(exchange: MockExchange, responder: MockResponder): Promise<void> {
    this.chatCounts.chatRequests++;
    const body = exchange.body;
    const current = isObject(body) ? currentMessage(body) : undefined;
    const request = responder.record(typeof current?.modelId === "string" ? current.modelId : "");
    const refuse = (why: string, rendered: Rendered) => {
      request.rejected = why;
      return this.send(responder, rendered);
    };
    const kind = this.checkBearer(exchange);
    if (!kind) return refuse("the bearer token is unknown or expired", bearerInvalid());
    const bytes = Buffer.byteLength(exchange.text);
    const max = this.options.maxRequestBytes ?? 1_000_000;
    if (bytes > max) return refuse(`the body of ${bytes} bytes is over ${max}`, inputTooLong());
    const contentType = exchange.headers["content-type"]?.split(";")[0]?.trim() ?? "";
    if (!JSON_TYPES.includes(contentType) || !isObject(body))
      return refuse("the body must be a JSON object sent as application/json", improperlyFormed());
    const arn = body.profileArn;
    // Social logins name their profile on every call; Builder ID / IdC ones may leave it out.
    if (kind === "social" && arn === undefined)
      return refuse(
        "profileArn is required with a social-login token",
        improperlyFormed("REQUEST_BODY_INVALID"),
      );
    if (arn !== undefined && arn !== this.profileArn)
      return refuse(
        `profileArn ${JSON.stringify(arn)} is not the account's`,
        improperlyFormed("REQUEST_BODY_INVALID"),
      );
    if (responder.checkRequests) {
      const broken = checkKiroBody(body, new Set([...KIRO_MODEL_IDS, ...responder.models.map((m) => m.id)]));
      if (broken) return refuse(broken, improperlyFormed());
    }

    const reply = responder.nextReply(request);
    if (!reply)
      return this.send(
        responder,
        kiroError(500, "InternalServerException", "the mock server has no reply scripted for this request"),
      );
    const quirks = this.quirks.shift() ?? {};
    const fault = reply.fault && renderKiroFault(reply.fault);
    if (fault) return this.send(responder, fault, reply);
    const credits = this.options.creditsPerReply ?? 0.0421;
    this.creditsUsed += credits;
    const rendered = renderKiroStream(reply, {
      quirks,
      credits,
      contextWindow: this.contextWindow(request.model, responder),
      requestChars: exchange.text.length,
    });
    if (quirks.keepOpenMs === undefined) return this.send(responder, rendered, reply);
    // One write, then the server's per-frame delay holds the response open before it ends.
    const whole = Buffer.concat(rendered.frames.map(frameBytes));
    return this.send(responder, { ...rendered, frames: [whole] }, { delayMs: quirks.keepOpenMs });
  }

  private async listModels(exchange: MockExchange, responder: MockResponder): Promise<void> {
    const request = responder.record("");
    if (!this.checkBearer(exchange)) {
      request.rejected = "the bearer token is unknown or expired";
      return this.send(responder, bearerInvalid());
    }
    if (responder.checkRequests && exchange.query.get("origin") !== "AI_EDITOR") {
      request.rejected = "ListAvailableModels needs origin=AI_EDITOR";
      return this.send(responder, improperlyFormed());
    }
    const own = responder.models.map((m) => ({
      modelId: m.id,
      modelName: m.id,
      rateMultiplier: 1,
      maxOutputTokens: 8_192,
      window: m.contextLength ?? CATALOGUE_WINDOW,
    }));
    const models = [
      ...CATALOGUE.filter((c) => !own.some((m) => m.modelId === c.modelId)).map((c) => ({
        ...c,
        window: CATALOGUE_WINDOW,
      })),
      ...own,
    ].map((m) => ({
      modelId: m.modelId,
      modelName: m.modelName,
      description: `${m.modelName} (mock)`,
      rateMultiplier: m.rateMultiplier,
      rateUnit: "credit",
      tokenLimits: { maxInputTokens: m.window, maxOutputTokens: m.maxOutputTokens },
      supportedInputTypes: ["TEXT", "IMAGE"],
      supportsPromptCache: true,
    }));
    return this.send(
      responder,
      json(200, { models, defaultModel: models.find((m) => m.modelId === "auto") }),
    );
  }

  private async usageLimits(exchange: MockExchange, responder: MockResponder): Promise<void> {
    const request = responder.record("");
    if (!this.checkBearer(exchange)) {
      request.rejected = "the bearer token is unknown or expired";
      return this.send(responder, bearerInvalid());
    }
    const now = new Date();
    const reset = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
    const used = Math.round(this.creditsUsed * 100) / 100;
    return this.send(
      responder,
      json(200, {
        daysUntilReset: Math.ceil((reset * 1000 - now.getTime()) / 86_400_000),
        nextDateReset: reset,
        subscriptionInfo: { subscriptionTitle: "KIRO FREE", type: "Q_DEVELOPER_STANDALONE_FREE" },
        usageBreakdownList: [
          {
            resourceType: "CREDIT",
            displayName: "Credit",
            displayNamePlural: "Credits",
            unit: "INVOCATIONS",
            currency: "USD",
            currentUsage: Math.floor(used),
            currentUsageWithPrecision: used,
            usageLimit: 50,
            usageLimitWithPrecision: 50,
            nextDateReset: reset,
            freeTrialInfo: null,
          },
        ],
        userInfo: { email: "kiro-mock@example.com", userId: "d-9067c98495.mock-user" },
      }),
    );
  }

  private checkBearer(exchange: MockExchange) {
    const header = exchange.headers.authorization ?? "";
    const kind = header.startsWith("Bearer ") ? this.auth.accessTokenKind(header.slice(7)) : undefined;
    if (!kind) this.chatCounts.invalidBearer++;
    return kind;
  }

  private contextWindow(model: string, responder: MockResponder): number {
    return responder.models.find((m) => m.id === model)?.contextLength ?? CATALOGUE_WINDOW;
  }

  // Every answer carries a request id, as AWS's do.
  private send(responder: MockResponder, rendered: Rendered, reply?: MockReply): Promise<void> {
    return responder.send(
      { ...rendered, headers: { ...rendered.headers, "x-amzn-RequestId": randomUUID() } },
      reply,
    );
  }
}

function currentMessage(body: JsonObject): JsonObject | undefined {
  const state = body.conversationState;
  const current =
    isObject(state) && isObject(state.currentMessage) ? state.currentMessage.userInputMessage : undefined;
  return isObject(current) ? current : undefined;
}
