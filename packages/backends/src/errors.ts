/** Fields every backend error carries. */
export interface BackendErrorInit {
  /** The kind of provider: openai, anthropic, ollama, gemini or scripted (never a profile's name). */
  provider: string;
  /**
   * The name of the backend that failed, as the user configured it: its backends.conf profile, or the name
   * given in code (which defaults to the provider). Absent when no backend was involved.
   */
  profile?: string;
  /** HTTP status, when the error came with one (not for errors inside a 200 stream). */
  status?: number;
  /** The provider's own message. */
  providerMessage: string;
  requestId?: string;
  /** The headers of the error response, as received (lists joined with ", "). */
  responseHeaders?: Readonly<Record<string, string>>;
}

/** Which backend a failure came from: what every function that may throw a BackendError is given. */
export type ErrorSource = Pick<BackendErrorInit, "provider" | "profile">;

/**
 * A failure of an LLM request, typed so the agent loop knows what to do: retry later (RateLimitError,
 * TransientError), compact and retry (ContextOverflowError), or give up (the rest). The message starts with
 * the name the user configured (`profile`, else `provider`).
 */
export abstract class BackendError extends Error {
  /** The kind of provider: openai, anthropic, ollama, gemini or scripted. */
  readonly provider: string;
  /** The backend's configured name (backends.conf profile, or the name given in code), when known. */
  readonly profile: string | undefined;
  readonly status: number | undefined;
  readonly providerMessage: string;
  readonly requestId: string | undefined;
  /** The headers of the error response; empty for an error that arrived inside a stream. */
  readonly responseHeaders: Readonly<Record<string, string>>;
  abstract readonly retryable: boolean;

  constructor(init: BackendErrorInit) {
    const status = init.status === undefined ? "" : ` ${init.status}`;
    super(`${init.profile ?? init.provider}${status}: ${init.providerMessage}`);
    this.provider = init.provider;
    this.profile = init.profile;
    this.status = init.status;
    this.providerMessage = init.providerMessage;
    this.requestId = init.requestId;
    this.responseHeaders = init.responseHeaders ?? {};
  }
}

/** A failure worth retrying: after `retryAfterMs` when the provider said how long to wait, else with backoff. */
export abstract class RetryableError extends BackendError {
  readonly retryable = true;
  readonly retryAfterMs: number | undefined;
  constructor(init: BackendErrorInit & { retryAfterMs?: number | undefined }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** Too many requests. */
export class RateLimitError extends RetryableError {
  override readonly name = "RateLimitError";
}

/** A failure that may not happen again: 5xx, overload, a dropped connection, a stream cut short. */
export class TransientError extends RetryableError {
  override readonly name: string = "TransientError";
}

/**
 * Nothing answered at the backend's address: the connection was refused, or the host or network could not
 * be found (`code` is the system's: ECONNREFUSED, ENOTFOUND, EHOSTUNREACH, …). A TransientError — a server
 * can come up — but one that is not there rarely does within seconds, so callers should give up sooner
 * than on a failing server (the agent loop retries it once, quickly).
 */
export class UnreachableError extends TransientError {
  override readonly name = "UnreachableError";
  readonly code: string;
  constructor(init: BackendErrorInit & { code: string }) {
    super(init);
    this.code = init.code;
  }
}

/** The request does not fit the model's context window: compact the conversation and retry. */
export class ContextOverflowError extends BackendError {
  override readonly name = "ContextOverflowError";
  readonly retryable = false;
}

/** The model or server cannot take tools. */
export class ToolUnsupportedError extends BackendError {
  override readonly name = "ToolUnsupportedError";
  readonly retryable = false;
}

/** The credential is missing, wrong, or not allowed (including quota and billing refusals). */
export class AuthError extends BackendError {
  override readonly name = "AuthError";
  readonly retryable = false;
}

/** The provider refused the request as malformed; sending it again will not help. */
export class BadRequestError extends BackendError {
  override readonly name = "BadRequestError";
  readonly retryable = false;
}
