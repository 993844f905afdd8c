import { AuthError, type BackendError, type ErrorSource, RateLimitError } from "../../errors.js";
import { classifyError, errorFacts } from "../../http/classify.js";
import { readText, send } from "../../http/http-request.js";
import { retryAfterMs } from "../../http/retry-after.js";

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

/** Renew this long before the token's own expiry, in case the clocks disagree. */
const EXPIRY_MARGIN_MS = 60_000;

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
 * before `expires_at`), and dropped when the API refuses one. Concurrent requests share one exchange.
 */
export class CopilotSession {
  private current: CopilotToken | undefined;
  private pending: Promise<CopilotToken> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: CopilotSessionOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A token that is still good, exchanging for a new one when needed. */
  async token(signal?: AbortSignal): Promise<CopilotToken> {
    if (this.current && this.now() < this.current.renewAt) return this.current;
    this.pending ??= this.exchange(signal).finally(() => {
      this.pending = undefined;
    });
    this.current = await this.pending;
    return this.current;
  }

  /** Forgets the token the API refused (unless another request renewed it already). */
  invalidate(refused: string): void {
    if (this.current?.token === refused) this.current = undefined;
  }

  private async exchange(signal?: AbortSignal): Promise<CopilotToken> {
    const { source, githubApiUrl } = this.options;
    const githubToken = await this.options.githubToken(signal);
    const res = await send(source, `${githubApiUrl}/copilot_internal/v2/token`, {
      headers: {
        accept: "application/json",
        authorization: `token ${githubToken}`,
        ...this.options.headers(),
      },
      signal,
    });
    const text = await readText(res.body, signal);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (res.status !== 200) throw exchangeError(source, res.status, body, text, res.headers);
    const envelope = (body ?? {}) as TokenEnvelope;
    if (typeof envelope.token !== "string" || typeof envelope.expires_at !== "number")
      throw new AuthError({
        ...source,
        status: res.status,
        providerMessage: "the Copilot token exchange answered without a token",
      });
    const api = typeof envelope.endpoints?.api === "string" ? envelope.endpoints.api : undefined;
    const now = this.now();
    const expiry = envelope.expires_at * 1000 - EXPIRY_MARGIN_MS;
    const refreshIn = typeof envelope.refresh_in === "number" ? envelope.refresh_in * 1000 : Infinity;
    return {
      token: envelope.token,
      apiUrl: (api ?? apiFromToken(envelope.token) ?? "https://api.githubcopilot.com").replace(/\/+$/, ""),
      renewAt: Math.min(expiry, now + refreshIn),
    };
  }
}

/** The API base a token names in its `proxy-ep` field (proxy.X → https://api.X), for exchanges without endpoints. */
function apiFromToken(token: string): string | undefined {
  const proxy = /(?:^|;)proxy-ep=([^;:]+)/.exec(token)?.[1];
  return proxy ? `https://${proxy.replace(/^proxy\./, "api.")}` : undefined;
}

/** Why GitHub would not exchange the token, in words that say what to do. */
function exchangeError(
  source: ErrorSource,
  status: number,
  body: unknown,
  text: string,
  headers: Parameters<typeof classifyError>[3],
): BackendError {
  const envelope = (body ?? {}) as ErrorEnvelope;
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
  return classifyError(source, status, errorFacts(body, text.trim()), headers);
}
