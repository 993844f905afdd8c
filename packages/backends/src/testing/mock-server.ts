import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { CopilotMock, type CopilotMockOptions } from "./copilot/copilot-mock.js";
import { KiroMock, type KiroMockOptions } from "./kiro/kiro-mock.js";
import type { ApiDialect, MockProvider, RecordedRequest } from "./mock-provider.js";
import { frameBytes, type MockReply, type Rendered } from "./mock-reply.js";
import type { MockExchange, MockResponder, ProviderMock } from "./provider-mock.js";
import { checkRequest } from "./rules/check-request.js";
import { SignatureRegistry } from "./signature-registry.js";
import { renderAnthropic } from "./wire/anthropic.js";
import { renderGemini } from "./wire/gemini.js";
import { renderOllama } from "./wire/ollama.js";
import { renderOpenAi } from "./wire/openai.js";

export type { MockProvider, RecordedRequest } from "./mock-provider.js";

type Renderer = (reply: MockReply, model: string, signatures: SignatureRegistry) => Rendered;

export interface MockServerOptions {
  /** Replies given in order, one per chat request; or a function choosing one per request. */
  replies?: MockReply[] | ((request: RecordedRequest) => MockReply);
  /** Models the list endpoints report, with their context windows. */
  models?: Array<{ id: string; contextLength?: number }>;
  /**
   * Check each chat request against its provider's request rules and answer a broken one with the
   * provider's own 400, as the real API would (default true). A rejected request is recorded, with
   * `rejected` set, and uses up no scripted reply.
   */
  checkRequests?: boolean;
  /** The Copilot mock's settings (device flow, token lifetime, model catalogue, quirks). */
  copilot?: CopilotMockOptions;
  /** The Kiro mock's settings (token lifetime, request limits, stream quirks). */
  kiro?: KiroMockOptions;
}

/** Parses a request body: JSON, or the fields of a form (GitHub's device flow takes either). */
function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === "") return undefined;
  if (contentType?.startsWith("application/x-www-form-urlencoded"))
    return Object.fromEntries(new URLSearchParams(text));
  return JSON.parse(text) as unknown;
}

/**
 * An HTTP server that speaks each provider's exact wire format from a script: OpenAI chat completions at
 * `/v1/chat/completions`, Anthropic messages at `/v1/messages`, Ollama at `/api/chat`, Gemini at
 * `/v1beta/models/{model}:streamGenerateContent`, and their model lists; GitHub Copilot under `/copilot`
 * (GitHub's device flow and token exchange, Copilot's three chat APIs) and Kiro under `/kiro` (its token
 * services, and Q's event-stream API). It records every request and notices clients that disconnect
 * before their reply is finished. Point a backend at `baseUrl(provider)`.
 *
 * Requests are checked as the real APIs check them (see docs/request-rules.md), including reasoning
 * signatures: a thinking signature or thought signature is accepted only when this server issued it, in an
 * earlier reply, for the same provider and model.
 */
export class MockLlmServer {
  readonly requests: RecordedRequest[] = [];
  /**
   * The reasoning signatures this server issued. A test that builds a history by hand may `issue` one here
   * for the provider and model it will send it to.
   */
  readonly signatures = new SignatureRegistry();
  /** Chat requests whose client went away before the reply was complete. */
  disconnects = 0;
  private queue: MockReply[] = [];
  private chooser: ((request: RecordedRequest) => MockReply) | undefined;
  private readonly models: Array<{ id: string; contextLength?: number }>;
  private readonly disconnectWaiters: Array<() => void> = [];
  private readonly checkRequests: boolean;
  private readonly mounts = new Map<string, [MockProvider, ProviderMock]>();
  /** GitHub's device flow and token exchange, and Copilot's API, under `/copilot`. */
  readonly copilot: CopilotMock;
  /** Kiro's token services and Q API, under `/kiro`. */
  readonly kiro: KiroMock;

  private constructor(
    private readonly server: Server,
    options: MockServerOptions,
  ) {
    if (typeof options.replies === "function") this.chooser = options.replies;
    else this.queue = [...(options.replies ?? [])];
    this.models = options.models ?? [{ id: "mock-model", contextLength: 32_768 }];
    this.checkRequests = options.checkRequests ?? true;
    this.copilot = new CopilotMock(options.copilot);
    this.kiro = new KiroMock(options.kiro);
    this.mount("/copilot", "copilot", this.copilot);
    this.mount("/kiro", "kiro", this.kiro);
  }

  static async start(options: MockServerOptions = {}): Promise<MockLlmServer> {
    let mock!: MockLlmServer;
    const server = createServer((req, res) => {
      mock.handle(req, res).catch((err: unknown) => {
        res.destroy(err as Error);
      });
    });
    mock = new MockLlmServer(server, options);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return mock;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /**
   * The base URL to configure for a provider (OpenAI-compatible bases include /v1; a mounted mock's is its
   * prefix).
   */
  baseUrl(provider: MockProvider): string {
    if (provider === "openai") return `${this.url}/v1`;
    for (const [prefix, [mounted]] of this.mounts) if (mounted === provider) return `${this.url}${prefix}`;
    return this.url;
  }

  /** Serves `mock` under `prefix` (e.g. "/copilot"), its requests recorded as `provider`'s. */
  mount(prefix: string, provider: MockProvider, mock: ProviderMock): void {
    this.mounts.set(prefix, [provider, mock]);
  }

  /** Adds replies to the end of the script. */
  enqueue(...replies: MockReply[]): void {
    this.queue.push(...replies);
  }

  /** The last chat request received. */
  get lastRequest(): RecordedRequest | undefined {
    return this.requests.filter((r) => r.method === "POST").at(-1);
  }

  /** Resolves at the next client disconnect (or at once if `count` have happened). */
  async waitForDisconnects(count: number): Promise<void> {
    while (this.disconnects < count)
      await new Promise<void>((resolve) => this.disconnectWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = parseBody(text, req.headers["content-type"]);
    const url = new URL(req.url ?? "/", this.url);
    const path = url.pathname;
    const record = (provider: MockProvider, model: string): RecordedRequest => {
      const r = { provider, method: req.method ?? "GET", path, headers: req.headers, body, model };
      this.requests.push(r);
      return r;
    };
    for (const [prefix, [provider, mock]] of this.mounts) {
      if (path !== prefix && !path.startsWith(`${prefix}/`)) continue;
      const exchange: MockExchange = {
        method: req.method ?? "GET",
        path: path.slice(prefix.length) || "/",
        query: url.searchParams,
        headers: req.headers,
        text,
        body,
      };
      const responder: MockResponder = {
        record: (model) => record(provider, model),
        nextReply: (request) => (this.chooser ? this.chooser(request) : this.queue.shift()),
        send: (rendered, reply = {}) => this.stream(res, rendered, reply),
        signatures: this.signatures,
        models: this.models,
        checkRequests: this.checkRequests,
      };
      if (await mock.handle(exchange, responder)) return;
      return this.json(res, { error: { message: `no route for ${req.method} ${path}` } }, 404);
    }
    const bodyModel = (body as { model?: string } | undefined)?.model ?? "";
    if (req.method === "GET") {
      if (path === "/v1/models" && req.headers["anthropic-version"]) {
        record("anthropic", "");
        return this.json(res, {
          data: this.models.map((m) => ({ type: "model", id: m.id, max_input_tokens: m.contextLength })),
          has_more: false,
        });
      }
      if (path === "/v1/models") {
        record("openai", "");
        return this.json(res, {
          object: "list",
          data: this.models.map((m) => ({ id: m.id, object: "model", context_length: m.contextLength })),
        });
      }
      if (path === "/api/tags") {
        record("ollama", "");
        return this.json(res, { models: this.models.map((m) => ({ name: m.id, model: m.id })) });
      }
      if (path === "/v1beta/models") {
        record("gemini", "");
        return this.json(res, {
          models: this.models.map((m) => ({
            name: `models/${m.id}`,
            inputTokenLimit: m.contextLength,
            supportedGenerationMethods: ["generateContent"],
          })),
        });
      }
    }
    if (req.method === "POST") {
      if (path === "/api/show") {
        record("ollama", bodyModel);
        const m = this.models.find((x) => x.id === bodyModel);
        return this.json(res, {
          model_info: {
            "general.architecture": "qwen3",
            ...(m?.contextLength && { "qwen3.context_length": m.contextLength }),
          },
          capabilities: ["completion", "tools"],
        });
      }
      const gemini = /^\/v1beta\/models\/([^/:]+):streamGenerateContent$/.exec(path);
      const route: [ApiDialect, string, Renderer] | undefined =
        path === "/v1/chat/completions"
          ? ["openai", bodyModel, renderOpenAi]
          : path === "/v1/messages"
            ? ["anthropic", bodyModel, renderAnthropic]
            : path === "/api/chat"
              ? ["ollama", bodyModel, renderOllama]
              : gemini
                ? ["gemini", decodeURIComponent(gemini[1]!), renderGemini]
                : undefined;
      if (route) {
        const request = record(route[0], route[1]);
        const rejection = this.checkRequests
          ? checkRequest(route[0], {
              body,
              headers: req.headers,
              model: route[1],
              signatures: this.signatures,
            })
          : undefined;
        if (rejection) {
          request.rejected = rejection.message;
          res.writeHead(rejection.status, rejection.headers);
          res.end(Buffer.concat(rejection.frames.map(frameBytes)));
          return;
        }
        const reply = this.chooser ? this.chooser(request) : this.queue.shift();
        if (!reply)
          return this.json(
            res,
            { error: { message: "the mock server has no reply scripted for this request" } },
            500,
          );
        return this.stream(res, route[2](reply, route[1], this.signatures), reply);
      }
    }
    return this.json(res, { error: { message: `no route for ${req.method} ${path}` } }, 404);
  }

  private json(res: ServerResponse, body: unknown, status = 200): void {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  private async stream(res: ServerResponse, rendered: Rendered, reply: MockReply): Promise<void> {
    let finished = false;
    res.on("close", () => {
      if (finished) return;
      this.disconnects++;
      for (const w of this.disconnectWaiters.splice(0)) w();
    });
    res.writeHead(rendered.status, rendered.headers);
    const frames = reply.cutAfter === undefined ? rendered.frames : rendered.frames.slice(0, reply.cutAfter);
    if (reply.splitUtf8) {
      const bytes = Buffer.concat(frames.map(frameBytes));
      const at = bytes.findIndex((b) => b >= 0xc0);
      const split = at < 0 ? bytes.length : at + 1;
      res.write(bytes.subarray(0, split));
      await sleep(30);
      res.write(bytes.subarray(split));
    } else if (reply.writeSize !== undefined) {
      const bytes = Buffer.concat(frames.map(frameBytes));
      for (let at = 0; at < bytes.length && !res.destroyed; at += reply.writeSize) {
        res.write(bytes.subarray(at, at + reply.writeSize));
        await sleep(reply.delayMs ?? 1);
      }
    } else {
      for (const frame of frames) {
        if (res.destroyed) return;
        res.write(frame);
        if (reply.delayMs) await sleep(reply.delayMs);
      }
    }
    if (reply.cutAfter !== undefined) {
      await sleep(10);
      finished = true;
      res.destroy();
      return;
    }
    finished = true;
    res.end();
  }
}
