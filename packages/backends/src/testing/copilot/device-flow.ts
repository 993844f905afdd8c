import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";

/** The Copilot GitHub App most clients log in with. */
export const COPILOT_CLIENT_ID = "Iv1.b507a08c87ecfe98";
/** opencode's own OAuth app, whose token it sends to the chat API directly. */
export const OPENCODE_CLIENT_ID = "Ov23li8tweQw6odWQebz";
export const DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code";

const ERROR_URI =
  "https://docs.github.com/developers/apps/authorizing-oauth-apps#error-codes-for-the-device-flow";
const DESCRIPTIONS: Record<string, string> = {
  authorization_pending: "The authorization request is still pending.",
  slow_down: "Too many requests have been made in the same timeframe.",
  expired_token: "The device code has expired.",
  access_denied: "The authorization request was denied.",
  unsupported_grant_type: "The grant type is not supported.",
  incorrect_client_credentials: "The client_id is not valid.",
  incorrect_device_code: "The device_code provided is not valid.",
};
/** Timers may fire a millisecond early: a poll this close to the interval is not counted as early. */
const EARLY_TOLERANCE_MS = 2;

/**
 * The GitHub device flow as scripted for a test. Every interval is in seconds, as on the wire, where the
 * mock writes it verbatim as a JSON number: fractions are allowed (`intervalSeconds: 0.05` makes a client
 * that sleeps `interval * 1000` ms poll every 50 ms), though GitHub itself only sends whole seconds.
 */
export interface DeviceFlowOptions {
  /** The OAuth apps that may start a flow (default: the Copilot app and opencode's). */
  clientIds?: string[];
  /** The `interval` the device-code answer announces (default 5). */
  intervalSeconds?: number;
  /** `authorization_pending` answers before the user has decided (default 1). */
  pendingPolls?: number;
  /** When set, one `slow_down` answer after the pending ones, announcing this new interval. */
  slowDownIntervalSeconds?: number;
  /** What the user decides: a token, `access_denied`, or `expired_token` (default "granted"). */
  outcome?: "granted" | "denied" | "expired";
  /** `expires_in` of the device code; a poll after it gets `expired_token` (default 900). */
  expiresInSeconds?: number;
}

/** The fields of an OAuth answer, success or error (GitHub answers both with HTTP 200). */
export type OAuthFields = Record<string, string | number>;

interface PendingCode {
  clientId: string;
  scope: string;
  issuedAt: number;
  lastPollAt: number;
  intervalMs: number;
  polls: number;
  slowedDown: boolean;
}

const error = (code: string, extra: OAuthFields = {}): OAuthFields => ({
  error: code,
  error_description: DESCRIPTIONS[code] ?? code,
  error_uri: ERROR_URI,
  ...extra,
});

function code(length: number, alphabet: string): string {
  return [...randomBytes(length)].map((b) => alphabet[b % alphabet.length]).join("");
}

/** GitHub's `/login/device/code` and `/login/oauth/access_token`, with counters for what clients did. */
export class DeviceFlow {
  /** Device codes handed out. */
  codesIssued = 0;
  /** Polls of the token endpoint, answered or not. */
  polls = 0;
  /**
   * Polls that came sooner than the interval then in force after the previous poll of the same code (or
   * after the code was issued). Only counted: the answer is the scripted one all the same.
   */
  earlyPolls = 0;
  private options: Required<Omit<DeviceFlowOptions, "slowDownIntervalSeconds">> &
    Pick<DeviceFlowOptions, "slowDownIntervalSeconds"> = {
    clientIds: [COPILOT_CLIENT_ID, OPENCODE_CLIENT_ID],
    intervalSeconds: 5,
    pendingPolls: 1,
    outcome: "granted",
    expiresInSeconds: 900,
  };
  private readonly codes = new Map<string, PendingCode>();

  /** `onGranted` learns each GitHub token the flow issues (the token exchange accepts only those it knows). */
  constructor(private readonly onGranted: (githubToken: string) => void) {}

  configure(options: DeviceFlowOptions): void {
    this.options = { ...this.options, ...options };
  }

  requestCode(params: Record<string, string>): OAuthFields {
    const clientId = params.client_id ?? "";
    if (!this.options.clientIds.includes(clientId)) return error("incorrect_client_credentials");
    const deviceCode = randomBytes(20).toString("hex");
    const now = performance.now();
    this.codes.set(deviceCode, {
      clientId,
      scope: params.scope ?? "",
      issuedAt: now,
      lastPollAt: now,
      intervalMs: this.options.intervalSeconds * 1000,
      polls: 0,
      slowedDown: false,
    });
    this.codesIssued++;
    const letters = "BCDFGHJKLMNPQRSTVWXZ0123456789";
    return {
      device_code: deviceCode,
      user_code: `${code(4, letters)}-${code(4, letters)}`,
      verification_uri: "https://github.com/login/device",
      expires_in: this.options.expiresInSeconds,
      interval: this.options.intervalSeconds,
    };
  }

  poll(params: Record<string, string>): OAuthFields {
    this.polls++;
    if (params.grant_type !== DEVICE_GRANT_TYPE) return error("unsupported_grant_type");
    const pending = this.codes.get(params.device_code ?? "");
    if (!pending) return error("incorrect_device_code");
    if (params.client_id !== pending.clientId) return error("incorrect_client_credentials");
    const now = performance.now();
    if (now - pending.lastPollAt < pending.intervalMs - EARLY_TOLERANCE_MS) this.earlyPolls++;
    pending.lastPollAt = now;
    pending.polls++;
    const o = this.options;
    if (now - pending.issuedAt > o.expiresInSeconds * 1000) return this.end(params, error("expired_token"));
    if (pending.polls <= o.pendingPolls) return error("authorization_pending");
    if (o.slowDownIntervalSeconds !== undefined && !pending.slowedDown) {
      pending.slowedDown = true;
      pending.intervalMs = o.slowDownIntervalSeconds * 1000;
      return error("slow_down", { interval: o.slowDownIntervalSeconds });
    }
    if (o.outcome === "denied") return this.end(params, error("access_denied"));
    if (o.outcome === "expired") return this.end(params, error("expired_token"));
    const token = `gho_${code(36, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")}`;
    this.onGranted(token);
    return this.end(params, { access_token: token, token_type: "bearer", scope: pending.scope });
  }

  /** A decided code is used up: polling it again gets `incorrect_device_code`. */
  private end(params: Record<string, string>, answer: OAuthFields): OAuthFields {
    this.codes.delete(params.device_code ?? "");
    return answer;
  }
}
