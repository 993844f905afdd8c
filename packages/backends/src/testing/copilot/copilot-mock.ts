import { randomBytes } from "node:crypto";
import type { RecordedRequest } from "../mock-provider.js";
import { json, type MockReply, type Rendered } from "../mock-reply.js";
import type { MockExchange, MockResponder, ProviderMock } from "../provider-mock.js";
import { checkRequest } from "../rules/check-request.js";
import { isObject, type JsonObject } from "../rules/request-check.js";
import { renderAnthropic } from "../wire/anthropic.js";
import { renderResponses } from "../wire/responses.js";
import { type CompletionQuirks, completionObject, renderCopilotCompletions } from "./copilot-chat.js";
import {
  type CopilotFailure,
  copilotFailure,
  gatewayFault,
  MISSING_BEARER,
  MISSING_EDITOR_VERSION,
  MODEL_NOT_SUPPORTED,
  modelNotSupported,
  openAiModelFault,
  TOKEN_EXPIRED,
  text,
} from "./copilot-errors.js";
import {
  type CopilotEndpoint,
  type CopilotModel,
  DEFAULT_COPILOT_MODELS,
  ModelCatalogue,
} from "./copilot-models.js";
import { DeviceFlow, type DeviceFlowOptions, type OAuthFields } from "./device-flow.js";
import { CopilotTokens, type ExchangeFailure } from "./token-exchange.js";

export interface CopilotMockOptions {
  /** How the GitHub device flow goes (see DeviceFlowOptions for how intervals are given). */
  deviceFlow?: DeviceFlowOptions;
  /** Lifetime of the Copilot tokens issued from now on, in seconds (default 1800; fractions allowed). */
  tokenTtlSeconds?: number;
  /** The `/models` catalogue (default DEFAULT_COPILOT_MODELS); policy changes start over from it. */
  models?: readonly CopilotModel[];
  /** Tool-call deltas in `choices[].index: 1`, the text in index 0 (default false). */
  splitChoices?: boolean;
  /** Tool-call deltas without `index` (default false). */
  omitToolCallIndex?: boolean;
  /**
   * Accept a GitHub token the mock knows as the chat API's bearer token, as opencode uses it without an
   * exchange (default false: only Copilot tokens).
   */
  acceptGithubTokens?: boolean;
}

const CHAT_ENDPOINTS: readonly CopilotEndpoint[] = ["/chat/completions", "/responses", "/v1/messages"];
const POLICY_PATH = /^\/models\/([^/]+)\/policy$/;

/** `X-GitHub-Request-Id` in GitHub's form: five hex groups. */
const requestId = () => [2, 2, 3, 3, 4].map((n) => randomBytes(n).toString("hex").toUpperCase()).join(":");

/** The request's parameters, from the query and a form or JSON body (GitHub reads either). */
function paramsOf(exchange: MockExchange): Record<string, string> {
  const body = isObject(exchange.body) ? exchange.body : {};
  const params: Record<string, string> = Object.fromEntries(exchange.query);
  for (const [k, v] of Object.entries(body)) params[k] = String(v);
  return params;
}

/** GitHub answers OAuth requests form-encoded unless asked for JSON. */
function oauthAnswer(exchange: MockExchange, fields: OAuthFields): Rendered {
  if (String(exchange.headers.accept ?? "").includes("application/json")) return json(200, fields);
  const form = new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]));
  return {
    status: 200,
    headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
    frames: [form.toString()],
  };
}

/**
 * GitHub Copilot as its clients see it, both sides (design doc wire-copilot-kiro.md, part A): GitHub's
 * device flow and token exchange, and the Copilot chat API at `{prefix}/api`, which the exchange names as
 * `endpoints.api`. Chat requests take the server's scripted replies, rendered in each endpoint's dialect
 * with Copilot's quirks; every answer carries `x-github-request-id`.
 */
export class CopilotMock implements ProviderMock {
  private readonly tokens = new CopilotTokens();
  private readonly deviceFlow = new DeviceFlow((token) => this.tokens.addGithubToken(token));
  private readonly catalogue = new ModelCatalogue(DEFAULT_COPILOT_MODELS);
  private quirks: CompletionQuirks = { splitChoices: false, omitToolCallIndex: false };
  private acceptGithubTokens = false;
  private readonly failures: CopilotFailure[] = [];

  constructor(options: CopilotMockOptions = {}) {
    this.configure(options);
  }

  /** Changes the given settings; the others keep their values. */
  configure(options: CopilotMockOptions): void {
    if (options.deviceFlow) this.deviceFlow.configure(options.deviceFlow);
    if (options.tokenTtlSeconds !== undefined) this.tokens.ttlSeconds = options.tokenTtlSeconds;
    if (options.models) this.catalogue.replace(options.models);
    this.quirks = {
      splitChoices: options.splitChoices ?? this.quirks.splitChoices,
      omitToolCallIndex: options.omitToolCallIndex ?? this.quirks.omitToolCallIndex,
    };
    this.acceptGithubTokens = options.acceptGithubTokens ?? this.acceptGithubTokens;
  }

  /** Makes `token` a GitHub token the exchange accepts, as if a device flow had issued it. */
  addGithubToken(token: string): void {
    this.tokens.addGithubToken(token);
  }

  /** Expires every Copilot token issued so far: the chat API answers them 401 `unauthorized: token expired`. */
  expireTokens(): void {
    this.tokens.expireAll();
  }

  /** Fails the next `times` token exchanges (default: all of them until called with undefined). */
  failExchanges(failure: ExchangeFailure | undefined, times?: number): void {
    this.tokens.failExchanges(failure, times);
  }

  /** Answers the next chat request with `failure`, before any scripted reply is used. Calls queue up. */
  failNextChat(failure: CopilotFailure): void {
    this.failures.push(failure);
  }

  /** Requests to `/copilot_internal/v2/token`, failed ones included. */
  get exchanges(): number {
    return this.tokens.exchanges;
  }

  /** Copilot tokens issued by successful exchanges. */
  get tokensIssued(): number {
    return this.tokens.issued;
  }

  get deviceCodesIssued(): number {
    return this.deviceFlow.codesIssued;
  }

  get devicePolls(): number {
    return this.deviceFlow.polls;
  }

  /** Device-flow polls that came before the interval in force had passed. */
  get earlyPolls(): number {
    return this.deviceFlow.earlyPolls;
  }

  /** The catalogue as `/models` lists it now, with the policy states reached. */
  get models(): readonly CopilotModel[] {
    return this.catalogue.list();
  }

  async handle(exchange: MockExchange, responder: MockResponder): Promise<boolean> {
    const { method, path } = exchange;
    const send = (rendered: Rendered, reply?: MockReply) =>
      responder.send(
        { ...rendered, headers: { ...rendered.headers, "x-github-request-id": requestId() } },
        reply,
      );
    if (method === "POST" && path === "/login/device/code") {
      responder.record("");
      await send(oauthAnswer(exchange, this.deviceFlow.requestCode(paramsOf(exchange))));
      return true;
    }
    if (method === "POST" && path === "/login/oauth/access_token") {
      responder.record("");
      await send(oauthAnswer(exchange, this.deviceFlow.poll(paramsOf(exchange))));
      return true;
    }
    if (method === "GET" && path === "/copilot_internal/v2/token") {
      const request = responder.record("");
      const host = exchange.headers.host ?? "127.0.0.1";
      // The mount prefix is what the recorded full path has before the mock's own path.
      const prefix = request.path.slice(0, request.path.length - path.length);
      await send(this.tokens.exchange(exchange.headers.authorization, host, `http://${host}${prefix}/api`));
      return true;
    }
    if (!path.startsWith("/api/")) return false;
    const apiPath = path.slice("/api".length);
    const policy = POLICY_PATH.exec(apiPath);
    const endpoint = CHAT_ENDPOINTS.find((e) => e === apiPath);
    const body = isObject(exchange.body) ? exchange.body : {};
    let model: string;
    if (method === "GET" && apiPath === "/models") model = "";
    else if (method === "POST" && policy) model = decodeURIComponent(policy[1]!);
    else if (method === "POST" && endpoint) model = typeof body.model === "string" ? body.model : "";
    else return false;
    const request = responder.record(model);
    const refuse = (message: string, rendered: Rendered) => {
      request.rejected = message;
      return send(rendered);
    };
    const authProblem = this.authProblem(exchange);
    if (authProblem) await refuse(authProblem[0], authProblem[1]);
    else if (policy) await send(this.setPolicy(model, body));
    else if (endpoint) await this.chat(endpoint, exchange, responder, request, send, refuse);
    else await send(json(200, { data: this.catalogue.list(), object: "list" }));
    return true;
  }

  /** Why the chat API refuses a request's credentials or headers, if it does: the message and the answer. */
  private authProblem(exchange: MockExchange): [string, Rendered] | undefined {
    const bearer = /^Bearer\s+(\S+)$/i.exec(exchange.headers.authorization ?? "")?.[1];
    // Copilot takes no `x-api-key`: an Anthropic SDK client that sends only that gets this 401.
    if (bearer === undefined) return [MISSING_BEARER, text(401, MISSING_BEARER)];
    if (exchange.headers["editor-version"] === undefined)
      return [MISSING_EDITOR_VERSION, text(400, MISSING_EDITOR_VERSION)];
    if (this.acceptGithubTokens && this.tokens.isGithubToken(bearer)) return undefined;
    if (this.tokens.status(bearer) !== "valid") return [TOKEN_EXPIRED, text(401, TOKEN_EXPIRED)];
    return undefined;
  }

  private setPolicy(model: string, body: JsonObject): Rendered {
    const state = body.state;
    if (state !== "enabled" && state !== "disabled")
      return json(400, {
        error: { message: `invalid policy state: ${String(state)}`, code: "invalid_state" },
      });
    if (!this.catalogue.setPolicy(model, state))
      return json(404, { error: { message: `model ${model} not found`, code: "model_not_found" } });
    return json(200, { state });
  }

  private async chat(
    endpoint: CopilotEndpoint,
    exchange: MockExchange,
    responder: MockResponder,
    request: RecordedRequest,
    send: (rendered: Rendered, reply?: MockReply) => Promise<void>,
    refuse: (message: string, rendered: Rendered) => Promise<void>,
  ): Promise<void> {
    const model = request.model;
    if (!this.catalogue.serves(model, endpoint)) return refuse(MODEL_NOT_SUPPORTED, modelNotSupported());
    const failure = this.failures.shift();
    if (failure) return send(copilotFailure(failure));
    // The Responses API has no request rules in this mock; the other two are checked as their vendors do.
    if (responder.checkRequests && endpoint !== "/responses") {
      const rejection = checkRequest(endpoint === "/v1/messages" ? "anthropic" : "openai", {
        body: exchange.body,
        headers: exchange.headers,
        model,
        signatures: responder.signatures,
      });
      if (rejection) return refuse(rejection.message, rejection);
    }
    const reply = responder.nextReply(request);
    if (!reply)
      return send(
        json(500, { error: { message: "the mock server has no reply scripted for this request" } }),
      );
    const streaming = isObject(exchange.body) && exchange.body.stream === true;
    return send(this.render(endpoint, reply, model, streaming, responder), reply);
  }

  private render(
    endpoint: CopilotEndpoint,
    reply: MockReply,
    model: string,
    streaming: boolean,
    responder: MockResponder,
  ): Rendered {
    const gateway = reply.fault && gatewayFault(reply.fault, model);
    if (gateway) return gateway;
    if (endpoint === "/v1/messages") return renderAnthropic(reply, model, responder.signatures);
    if (endpoint === "/responses") return renderResponses(reply, model, responder.signatures);
    const refused = reply.fault && openAiModelFault(reply.fault, model);
    if (refused) return refused;
    // A request that does not stream cannot fail half-way: its broken upstream shows as a 500.
    if (!streaming && reply.fault?.type === "stream_error")
      return gatewayFault({ type: "server_error", status: 500 }, model)!;
    const { rendered, chunks } = renderCopilotCompletions(reply, model, this.quirks, responder.signatures);
    return streaming ? rendered : completionObject(chunks, model);
  }
}
