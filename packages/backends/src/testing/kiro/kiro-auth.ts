import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { isObject, type JsonObject } from "../rules/request-check.js";

/** How a token was obtained: Kiro's desktop auth service ("social") or AWS SSO OIDC (Builder ID / IdC). */
export type KiroTokenKind = "social" | "oidc";

/** The script of the SSO OIDC device flow (B.3.4). */
export interface KiroDeviceFlowOptions {
  /** `authorization_pending` answers before the user "approves" (default 2). */
  pendingPolls?: number;
  /** Answer one `slow_down` after the pending ones (default false). */
  slowDown?: boolean;
  /** The `interval` handed out, in seconds; fractions allowed so tests stay fast (default 1). */
  intervalSeconds?: number;
  /** What `slow_down` adds to the interval the mock expects, as RFC 8628 asks (default 5). */
  slowDownIncrementSeconds?: number;
  /** Lifetime of the device code (default 600); a poll after it gets `expired_token`. */
  expiresInSeconds?: number;
  /** How the flow ends once the pending polls are used up (default "approve"). */
  outcome?: "approve" | "expired_token" | "access_denied";
}

export interface KiroAuthOptions {
  /** `expiresIn` of every access token issued (default 3600). */
  accessTokenTtlSeconds?: number;
  /** Hand out a new refresh token on each refresh and retire the old one (default false: keep it). */
  rotateRefreshTokens?: boolean;
  /** The profile ARN of the social account (returned by /refreshToken, required on its chat requests). */
  profileArn: string;
  deviceFlow?: KiroDeviceFlowOptions;
  /** The clock access tokens and device codes expire by (default `Date.now`; tests move it forward). */
  now?: () => number;
}

/** What the auth endpoints have been asked. */
export interface KiroAuthCounts {
  socialRefreshes: number;
  oidcRefreshes: number;
  /** Refreshes answered `invalid_grant` (either service). */
  failedRefreshes: number;
  registrations: number;
  deviceAuthorizations: number;
  /** Device-code grant polls of /oidc/token, whatever their answer. */
  devicePolls: number;
  /** Polls that came sooner than the interval in force after the previous poll of the same device code. */
  fastPolls: number;
}

/** A JSON answer of an auth endpoint, with the AWS error type when it is an error. */
export interface AuthAnswer {
  status: number;
  body: unknown;
  errorType?: string;
}

export interface SocialCredentials {
  accessToken: string;
  refreshToken: string;
  profileArn: string;
  expiresAt: Date;
}

export interface OidcCredentials {
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
}

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
// Timers may fire a hair early against performance.now(); a well-behaved poller must not count as fast.
const POLL_SLACK_MS = 5;

interface DeviceGrant {
  clientId: string;
  expiresAtMs: number;
  intervalMs: number;
  pendingAnswered: number;
  slowDownSent: boolean;
  lastPollMs?: number;
}

const token = (prefix: string) => `${prefix}${randomBytes(24).toString("base64url")}`;

// Each SSO OIDC error is a JSON `{error, error_description}` with its exception name as the error type.
const oidcError = (status: number, error: string, description: string, errorType: string): AuthAnswer => ({
  status,
  body: { error, error_description: description },
  errorType,
});
const INVALID_GRANT = oidcError(
  400,
  "invalid_grant",
  "Invalid refresh token provided",
  "InvalidGrantException",
);
// The SDK model types InvalidClientException as a 401 (every other OIDC error is a 400).
const INVALID_CLIENT = oidcError(
  401,
  "invalid_client",
  "Invalid client credentials",
  "InvalidClientException",
);
const invalidRequest = (what: string) => oidcError(400, "invalid_request", what, "InvalidRequestException");

/**
 * The token side of Kiro: the desktop auth service's refresh, and SSO OIDC's client registration, device
 * authorization and token grants. It remembers every token it issued, so the Q API can tell a valid bearer
 * token from an unknown or expired one.
 */
export class KiroAuth {
  readonly counts: KiroAuthCounts = {
    socialRefreshes: 0,
    oidcRefreshes: 0,
    failedRefreshes: 0,
    registrations: 0,
    deviceAuthorizations: 0,
    devicePolls: 0,
    fastPolls: 0,
  };
  private readonly accessTokens = new Map<string, { kind: KiroTokenKind; expiresAtMs: number }>();
  private readonly socialRefreshTokens = new Set<string>();
  private readonly clients = new Map<string, string>();
  private readonly oidcRefreshTokens = new Map<string, string>();
  private readonly deviceGrants = new Map<string, DeviceGrant>();
  private readonly ttlSeconds: number;
  private readonly now: () => number;

  constructor(private readonly options: KiroAuthOptions) {
    this.ttlSeconds = options.accessTokenTtlSeconds ?? 3600;
    this.now = options.now ?? Date.now;
  }

  /** A fresh social login: a refresh token the mock will honour and a valid access token. */
  socialCredentials(): SocialCredentials {
    const refreshToken = token("aorAAAAA");
    this.socialRefreshTokens.add(refreshToken);
    const [accessToken, expiresAt] = this.issue("social");
    return { accessToken, refreshToken, profileArn: this.options.profileArn, expiresAt };
  }

  /** A registered OIDC client (Builder ID / IdC) with a refresh token and a valid access token. */
  oidcCredentials(): OidcCredentials {
    const { clientId, clientSecret } = this.registerClient();
    const refreshToken = token("aorAAAAA");
    this.oidcRefreshTokens.set(refreshToken, clientId);
    const [accessToken, expiresAt] = this.issue("oidc");
    return { clientId, clientSecret, accessToken, refreshToken, expiresAt };
  }

  /** Makes every access token issued so far expired, as if an hour had passed. */
  expireAccessTokens(): void {
    for (const entry of this.accessTokens.values()) entry.expiresAtMs = 0;
  }

  /** The kind of a valid, unexpired access token; undefined for anything else. */
  accessTokenKind(accessToken: string): KiroTokenKind | undefined {
    const entry = this.accessTokens.get(accessToken);
    return entry && entry.expiresAtMs > this.now() ? entry.kind : undefined;
  }

  /** `POST /refreshToken` of the Kiro desktop auth service (B.3.2). */
  refreshSocial(body: unknown): AuthAnswer {
    const refreshToken = isObject(body) ? body.refreshToken : undefined;
    if (typeof refreshToken !== "string" || !this.socialRefreshTokens.has(refreshToken)) {
      this.counts.failedRefreshes++;
      // The document only pins down that the body contains both strings; this is Kiro's {message, reason}.
      return {
        status: 400,
        body: { message: "Invalid refresh token provided", reason: "invalid_grant" },
      };
    }
    this.counts.socialRefreshes++;
    const [accessToken] = this.issue("social");
    const next = this.rotate(refreshToken, () => this.socialRefreshTokens.delete(refreshToken));
    this.socialRefreshTokens.add(next);
    return {
      status: 200,
      body: {
        accessToken,
        refreshToken: next,
        expiresIn: this.ttlSeconds,
        profileArn: this.options.profileArn,
      },
    };
  }

  /** `POST /client/register` of SSO OIDC. */
  register(body: unknown): AuthAnswer {
    if (!isObject(body) || typeof body.clientName !== "string" || body.clientType !== "public")
      return oidcError(
        400,
        "invalid_client_metadata",
        "clientName and clientType public are required",
        "InvalidClientMetadataException",
      );
    const { clientId, clientSecret } = this.registerClient();
    const issuedAt = Math.floor(this.now() / 1000);
    return {
      status: 200,
      body: {
        clientId,
        clientSecret,
        clientIdIssuedAt: issuedAt,
        clientSecretExpiresAt: issuedAt + 90 * 86_400,
      },
    };
  }

  /** `POST /device_authorization` of SSO OIDC. */
  authorizeDevice(body: unknown): AuthAnswer {
    if (!this.validClient(body)) return INVALID_CLIENT;
    if (typeof body.startUrl !== "string") return invalidRequest("startUrl is required");
    this.counts.deviceAuthorizations++;
    const flow = this.options.deviceFlow ?? {};
    const interval = flow.intervalSeconds ?? 1;
    const expiresIn = flow.expiresInSeconds ?? 600;
    const deviceCode = token("");
    const userCode = `${randomLetters(4)}-${randomLetters(4)}`;
    this.deviceGrants.set(deviceCode, {
      clientId: body.clientId,
      expiresAtMs: this.now() + expiresIn * 1000,
      intervalMs: interval * 1000,
      pendingAnswered: 0,
      slowDownSent: false,
    });
    const verificationUri = "https://view.awsapps.com/start/#/device";
    return {
      status: 200,
      body: {
        deviceCode,
        userCode,
        verificationUri,
        verificationUriComplete: `${verificationUri}?user_code=${userCode}`,
        expiresIn,
        interval,
      },
    };
  }

  /** `POST /token` of SSO OIDC: the refresh_token grant (B.3.3) or a device-code poll (B.3.4). */
  createToken(body: unknown): AuthAnswer {
    if (!this.validClient(body)) return INVALID_CLIENT;
    if (body.grantType === "refresh_token") return this.refreshOidc(body);
    if (body.grantType === DEVICE_GRANT) return this.pollDevice(body);
    return oidcError(
      400,
      "unsupported_grant_type",
      `grantType ${JSON.stringify(body.grantType)} is not supported (JSON camelCase grantType expected)`,
      "UnsupportedGrantTypeException",
    );
  }

  private refreshOidc(body: JsonObject & { clientId: string }): AuthAnswer {
    const refreshToken = body.refreshToken;
    if (typeof refreshToken !== "string" || this.oidcRefreshTokens.get(refreshToken) !== body.clientId) {
      this.counts.failedRefreshes++;
      return INVALID_GRANT;
    }
    this.counts.oidcRefreshes++;
    const next = this.rotate(refreshToken, () => this.oidcRefreshTokens.delete(refreshToken));
    this.oidcRefreshTokens.set(next, body.clientId);
    return this.oidcTokens(next);
  }

  private pollDevice(body: JsonObject & { clientId: string }): AuthAnswer {
    const grant = typeof body.deviceCode === "string" ? this.deviceGrants.get(body.deviceCode) : undefined;
    if (!grant || grant.clientId !== body.clientId)
      return oidcError(400, "invalid_grant", "Invalid device code provided", "InvalidGrantException");
    this.counts.devicePolls++;
    const now = performance.now();
    if (grant.lastPollMs !== undefined && now - grant.lastPollMs < grant.intervalMs - POLL_SLACK_MS)
      this.counts.fastPolls++;
    grant.lastPollMs = now;
    const flow = this.options.deviceFlow ?? {};
    const expired = () => {
      this.deviceGrants.delete(body.deviceCode as string);
      return oidcError(400, "expired_token", "Device code has expired", "ExpiredTokenException");
    };
    if (this.now() > grant.expiresAtMs) return expired();
    if (grant.pendingAnswered < (flow.pendingPolls ?? 2)) {
      grant.pendingAnswered++;
      return oidcError(
        400,
        "authorization_pending",
        "Authorization is pending",
        "AuthorizationPendingException",
      );
    }
    if (flow.slowDown && !grant.slowDownSent) {
      grant.slowDownSent = true;
      grant.intervalMs += (flow.slowDownIncrementSeconds ?? 5) * 1000;
      return oidcError(400, "slow_down", "Client is polling too quickly", "SlowDownException");
    }
    if (flow.outcome === "expired_token") return expired();
    this.deviceGrants.delete(body.deviceCode as string);
    if (flow.outcome === "access_denied")
      return oidcError(400, "access_denied", "The user denied the authorization", "AccessDeniedException");
    const refreshToken = token("aorAAAAA");
    this.oidcRefreshTokens.set(refreshToken, body.clientId);
    return this.oidcTokens(refreshToken);
  }

  // CreateToken's answer; idToken is left out since Builder ID only returns one for OpenID scopes.
  private oidcTokens(refreshToken: string): AuthAnswer {
    const [accessToken] = this.issue("oidc");
    return {
      status: 200,
      body: { accessToken, tokenType: "Bearer", expiresIn: this.ttlSeconds, refreshToken },
    };
  }

  private registerClient(): { clientId: string; clientSecret: string } {
    this.counts.registrations++;
    const clientId = token("");
    const clientSecret = token("eyJraWQiOiJrZXktMTU2");
    this.clients.set(clientId, clientSecret);
    return { clientId, clientSecret };
  }

  private validClient(body: unknown): body is JsonObject & { clientId: string } {
    return (
      isObject(body) &&
      typeof body.clientId === "string" &&
      typeof body.clientSecret === "string" &&
      this.clients.get(body.clientId) === body.clientSecret
    );
  }

  private issue(kind: KiroTokenKind): [string, Date] {
    const accessToken = token("aoaAAAAA");
    const expiresAtMs = this.now() + this.ttlSeconds * 1000;
    this.accessTokens.set(accessToken, { kind, expiresAtMs });
    return [accessToken, new Date(expiresAtMs)];
  }

  private rotate(refreshToken: string, retire: () => void): string {
    if (!this.options.rotateRefreshTokens) return refreshToken;
    retire();
    return token("aorAAAAA");
  }
}

function randomLetters(count: number): string {
  const letters = "BCDFGHJKLMNPQRSTVWXZ";
  return [...randomBytes(count)].map((b) => letters[b % letters.length]).join("");
}
