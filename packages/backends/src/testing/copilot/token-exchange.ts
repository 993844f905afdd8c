import { createHmac, randomBytes } from "node:crypto";
import { json, type Rendered } from "../mock-reply.js";

/** A way `GET /copilot_internal/v2/token` can fail, as GitHub answers it. */
export type ExchangeFailure =
  /** 401: a bad or revoked GitHub token. */
  | { type: "unauthorized" }
  /** 403 with the Copilot error envelope (`notification_id` default "no_copilot_access"). */
  | { type: "no_access"; notificationId?: string }
  /** 403 with the standard GitHub REST rate-limit error and its `x-ratelimit-*` headers. */
  | { type: "rate_limited" }
  /** 404: no Copilot on the account, or a token minted by another OAuth app. */
  | { type: "not_found" }
  | { type: "server_error" };

/** Whether a token presented to the chat API is one the mock accepts. */
export type TokenStatus = "valid" | "expired" | "unknown";

const DOCS = "https://docs.github.com/rest";

const restError = (status: number, message: string, headers: Record<string, string> = {}) =>
  json(status, { message, documentation_url: DOCS, status: String(status) }, headers);

function failureAnswer(failure: ExchangeFailure): Rendered {
  switch (failure.type) {
    case "unauthorized":
      return restError(401, "Bad credentials");
    case "no_access": {
      const id = failure.notificationId ?? "no_copilot_access";
      return json(403, {
        can_signup_for_limited: false,
        message: "You do not have access to GitHub Copilot.",
        error_details: {
          message: `No access to GitHub Copilot found (${id}).`,
          notification_id: id,
          title: "No Copilot access",
          url: "https://github.com/settings/copilot",
        },
      });
    }
    case "rate_limited":
      return json(
        403,
        {
          message:
            "API rate limit exceeded for user ID 12345. If you reach out to GitHub Support for help, please include the request ID.",
          documentation_url: "https://developer.github.com/rest/overview/rate-limits-for-the-rest-api",
          status: "403",
        },
        {
          "x-ratelimit-limit": "5000",
          "x-ratelimit-remaining": "0",
          "x-ratelimit-used": "5000",
          "x-ratelimit-resource": "core",
          "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
        },
      );
    case "not_found":
      return restError(404, "Not Found");
    case "server_error":
      return restError(500, "Internal Server Error");
  }
}

/**
 * The GitHub tokens the mock knows and the Copilot session tokens it issued for them. A Copilot token is
 * `fields:mac` as the real one: `;`-separated `key=value` pairs (with `exp` and `proxy-ep`) and an HMAC.
 */
export class CopilotTokens {
  /** Requests to the exchange endpoint, failed ones included. */
  exchanges = 0;
  /** Copilot tokens issued. */
  issued = 0;
  /** Lifetime of a Copilot token in seconds; fractions allowed for fast expiry tests. */
  ttlSeconds = 1800;
  private readonly githubTokens = new Set<string>();
  /** Copilot token → the moment (ms since the epoch) it stops being accepted. */
  private readonly copilotTokens = new Map<string, number>();
  private failure: { failure: ExchangeFailure; remaining: number } | undefined;
  private readonly secret = randomBytes(32);

  addGithubToken(token: string): void {
    this.githubTokens.add(token);
  }

  isGithubToken(token: string): boolean {
    return this.githubTokens.has(token);
  }

  /** Answers the next `times` exchanges with `failure` (every one until cleared with undefined, by default). */
  failExchanges(failure: ExchangeFailure | undefined, times = Number.POSITIVE_INFINITY): void {
    this.failure = failure && { failure, remaining: times };
  }

  /** Makes every Copilot token issued so far expired. */
  expireAll(): void {
    const now = Date.now();
    for (const token of this.copilotTokens.keys()) this.copilotTokens.set(token, now);
  }

  status(token: string): TokenStatus {
    const expiry = this.copilotTokens.get(token);
    if (expiry === undefined) return "unknown";
    return Date.now() < expiry ? "valid" : "expired";
  }

  /**
   * Answers an exchange: `authorization` is the header (`token X` and `Bearer X` both in use), `host` the
   * request's Host (for `proxy-ep`) and `apiBase` the URL of the mock's chat API.
   */
  exchange(authorization: string | undefined, host: string, apiBase: string): Rendered {
    this.exchanges++;
    const githubToken = /^(?:token|bearer)\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    if (githubToken === undefined) return restError(401, "Requires authentication");
    if (this.failure) {
      const { failure } = this.failure;
      if (--this.failure.remaining <= 0) this.failure = undefined;
      return failureAnswer(failure);
    }
    if (!this.githubTokens.has(githubToken)) return restError(401, "Bad credentials");
    const expiry = Date.now() + this.ttlSeconds * 1000;
    // Floored, so that a client refreshing by `expires_at` never believes a token lives longer than it does.
    const expiresAt = Math.floor(expiry / 1000);
    const fields = [
      `tid=${randomBytes(16).toString("hex")}`,
      `exp=${expiresAt}`,
      "sku=monthly_subscriber",
      `proxy-ep=proxy.${host}`,
      "st=dotcom;chat=1;cit=1;malfil=1;editor_preview_features=1;mcp=1;ccr=1;8kp=1",
    ].join(";");
    const token = `${fields}:${createHmac("sha256", this.secret).update(fields).digest("hex")}`;
    this.copilotTokens.set(token, expiry);
    this.issued++;
    const origin = apiBase.replace(/\/api$/, "");
    return json(200, {
      token,
      expires_at: expiresAt,
      // 1500 for the default 1800, as the service answers; shorter TTLs keep the same proportion.
      refresh_in: Math.floor((this.ttlSeconds * 5) / 6),
      sku: "monthly_subscriber",
      individual: true,
      // Only `api` is served; the others point at the mock too, so that no client reaches a real host.
      endpoints: {
        api: apiBase,
        "origin-tracker": `${origin}/origin-tracker`,
        proxy: `${origin}/proxy`,
        telemetry: `${origin}/telemetry`,
      },
      chat_enabled: true,
      code_quote_enabled: true,
      code_review_enabled: true,
      codesearch: true,
      copilotignore_enabled: false,
      blackbird_clientside_indexing: false,
      vsc_electron_fetcher_v2: false,
      public_suggestions: "disabled",
      telemetry: "disabled",
      tracking_id: randomBytes(16).toString("hex"),
      enterprise_list: null,
      limited_user_quotas: null,
      limited_user_reset_date: null,
      organization_list: [],
    });
  }
}
