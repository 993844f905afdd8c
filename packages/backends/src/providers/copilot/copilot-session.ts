import { AuthError, type BackendError, type ErrorSource, RateLimitError } from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import { askJson, type JsonAnswer } from "../../http/http-request.js";
import { retryAfterMs } from "../../http/retry-after.js";
import { SharedWork } from "../../http/shared-work.js";

/** A Copilot session token and the API it is for. */
export interface CopilotToken {
  token: string;
  /** The API base the exchange named (`endpoints.api`), without a trailing slash. */
  apiUrl: string;
  /** When to fetch a new one (ms since the epoch). */
  renewAt: number;
}

interface TokenEnvelope {
  token?: unknown;
  expires_at?: unknown;
  refresh_in?: unknown;
  endpoints?: { api?: unknown };
}

interface ErrorEnvelope {
  message?: string;
  error_details?: { message?: string; notification_id?: string; url?: string };
}

/** Without `refresh_in`, renew this long before the token's own expiry, in case the clocks disagree. */
const EXPIRY_MARGIN_MS = 60_000;
/** The least time a token is used for before it is renewed. */
const MIN_LIFETIME_MS = 10_000;

export interface CopilotSessionOptions {
  source: ErrorSource;
  /** The GitHub REST API that exchanges tokens: https://api.github.com or https://api.ENTERPRISE-HOST. */
  githubApiUrl: string;
  /** The GitHub token to exchange (asked again at each exchange, so a new login is picked up). */
  githubToken: (signal?: AbortSignal) => Promise<string>;
  headers: () => Record<string, string>;
  now?: () => number;
}

/**
 * Copilot's short-lived session tokens, exchanged for the user's GitHub token at
 * `/copilot_internal/v2/token`: kept in memory only, renewed when `refresh_in` has passed (or shortly
 * before `expires_at` when it is missing), and dropped when the API refuses one. Concurrent requests share
 * one exchange, which no one caller's abort stops.
 */
export class CopilotSession {
  /** Private for real: a token must not show when the backend is inspected or logged. */
  #current: CopilotToken | undefined;
  readonly #exchange: SharedWork<CopilotToken>;
  private readonly now: () => number;

  constructor(private readonly options: CopilotSessionOptions) {
    this.now = options.now ?? Date.now;
    this.#exchange = new SharedWork(options.source, "the Copilot token exchange", (signal) =>
      this.exchange(signal),
    );
  }

  /** A token that is still good, exchanging for a new one when needed. */
  async token(signal?: AbortSignal): Promise<CopilotToken> {
    if (this.#current && this.now() < this.#current.renewAt) return this.#current;
    this.#current = await this.#exchange.run(signal);
    return this.#current;
  }

  /** Forgets the token the API refused (unless another request renewed it already). */
  invalidate(refused: string): void {
    if (this.#current?.token === refused) this.#current = undefined;
  }

  private async exchange(signal: AbortSignal): Promise<CopilotToken> {
    const { source, githubApiUrl } = this.options;
    const githubToken = await this.options.githubToken(signal);
    const res = await askJson(source, `${githubApiUrl}/copilot_internal/v2/token`, {
      headers: { authorization: `token ${githubToken}`, ...this.options.headers() },
      signal,
    });
    if (res.status !== 200) throw exchangeError(source, res);
    const envelope = res.fields as TokenEnvelope;
    if (typeof envelope.token !== "string" || typeof envelope.expires_at !== "number")
      throw new AuthError({
        ...source,
        status: res.status,
        providerMessage: "the Copilot token exchange answered without a token",
      });
    const api = typeof envelope.endpoints?.api === "string" ? envelope.endpoints.api : undefined;
    const now = this.now();
    // `refresh_in` is a duration, so a clock that is off does not matter; `expires_at` is the fallback.
    const lifetime =
      typeof envelope.refresh_in === "number"
        ? envelope.refresh_in * 1000
        : envelope.expires_at * 1000 - now - EXPIRY_MARGIN_MS;
    return {
      token: envelope.token,
      apiUrl: (api ?? apiFromToken(envelope.token) ?? "https://api.githubcopilot.com").replace(/\/+$/, ""),
      // Never renewed before every request: a token refused early is exchanged again anyway.
      renewAt: now + Math.max(lifetime, MIN_LIFETIME_MS),
    };
  }
}

/** The API base a token names in its `proxy-ep` field (proxy.X → https://api.X), for exchanges without endpoints. */
function apiFromToken(token: string): string | undefined {
  const proxy = /(?:^|;)proxy-ep=([^;:]+)/.exec(token)?.[1];
  return proxy ? `https://${proxy.replace(/^proxy\./, "api.")}` : undefined;
}

/** Why GitHub would not exchange the token, in words that say what to do. */
function exchangeError(source: ErrorSource, res: JsonAnswer): BackendError {
  const { status, fields, text, headers } = res;
  const envelope = fields as ErrorEnvelope;
  const detail = envelope.error_details;
  const base = { ...source, status };
  if (status === 401)
    return new AuthError({
      ...base,
      providerMessage:
        "GitHub refused the token (revoked or expired): sign in again with `ollie login copilot`",
    });
  if (status === 404)
    return new AuthError({
      ...base,
      providerMessage:
        "this GitHub account has no Copilot access, or the token was made by an app Copilot does not accept (sign in with `ollie login copilot`)",
    });
  // GitHub's REST rate limit is a 403 too, told apart by its message.
  if (status === 403 && /rate limit/i.test(envelope.message ?? "")) {
    const wait = retryAfterMs(headers ?? {});
    return new RateLimitError({
      ...base,
      providerMessage: envelope.message ?? "rate limited",
      ...(wait !== undefined && { retryAfterMs: wait }),
    });
  }
  if (status === 403 && detail?.message) {
    const id = detail.notification_id ? ` (${detail.notification_id})` : "";
    return new AuthError({ ...base, providerMessage: `not subscribed to Copilot${id}: ${detail.message}` });
  }
  return classifyError(source, status, errorFacts(fields, text.trim()), headers);
}
