import {
  AuthError,
  type BackendError,
  BadRequestError,
  ContextOverflowError,
  type ErrorSource,
  RateLimitError,
  ToolUnsupportedError,
  TransientError,
} from "../errors.js";
import { isOverflowMessage, isToolUnsupportedMessage } from "./overflow.js";
import type { ResponseHeaders } from "./response-headers.js";
import { retryAfterMs, retryInfoMs } from "./retry-after.js";

/** The parts of an error body the classification needs, whatever the provider's dialect. */
export interface ErrorFacts {
  message: string;
  /** Error type or code as a string: "rate_limit_error", "context_length_exceeded", "RESOURCE_EXHAUSTED"… */
  kinds: string[];
  /** A status carried inside the body (OpenRouter, vLLM, Gemini, in-stream errors). */
  code?: number;
  /** Gemini error details (RetryInfo, ErrorInfo, QuotaFailure). */
  details?: unknown;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;
}

/**
 * Reads the error dialects in use: OpenAI and OpenRouter `{error:{message,type,code}}`, old vLLM's top-level
 * `{message,type,code}`, Anthropic `{type:"error",error:{type,message,details}}`, Ollama `{error:"…"}`,
 * Gemini `{error:{code,message,status,details}}`, llama.cpp `{error:{code,message,type}}`, Kiro
 * `{message,reason}`.
 */
export function errorFacts(body: unknown, fallback: string): ErrorFacts {
  if (typeof body !== "object" || body === null) return { message: fallback, kinds: [] };
  const b = body as Record<string, unknown>;
  const e = typeof b.error === "object" && b.error !== null ? (b.error as Record<string, unknown>) : b;
  const message = str(e.message) ?? str(b.error) ?? fallback;
  const kinds = [
    e.type,
    e.code,
    e.status,
    e.reason,
    (e.details as Record<string, unknown> | undefined)?.error_code,
  ]
    .map(str)
    .filter((k): k is string => k !== undefined);
  const code = typeof e.code === "number" ? e.code : undefined;
  return {
    message,
    kinds,
    ...(code !== undefined && { code }),
    ...(e.details !== undefined && { details: e.details }),
  };
}

function has(facts: ErrorFacts, ...kinds: string[]): boolean {
  return facts.kinds.some((k) => kinds.includes(k));
}

/** Whether Gemini details mark a bad API key, or a quota that lasts the day (not worth retrying soon). */
function geminiDetail(details: unknown, test: (d: Record<string, unknown>) => boolean): boolean {
  return Array.isArray(details) && details.some((d) => typeof d === "object" && d !== null && test(d));
}

const dailyQuota = (d: Record<string, unknown>) =>
  Array.isArray(d.violations) &&
  d.violations.some(
    (v: { quotaId?: unknown }) => typeof v?.quotaId === "string" && /PerDay/i.test(v.quotaId),
  );

/**
 * The BackendError for a failed request: by status first, then by the body's type or code, and only then by
 * message text. `status` is undefined for an error that arrived inside a 200 stream.
 */
export function classifyError(
  source: ErrorSource,
  status: number | undefined,
  facts: ErrorFacts,
  headers: ResponseHeaders = {},
): BackendError {
  const requestId = [headers["x-request-id"], headers["request-id"]]
    .flat()
    .find((v) => typeof v === "string");
  const responseHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const base = {
    ...source,
    providerMessage: facts.message,
    ...(status !== undefined && { status }),
    ...(requestId !== undefined && { requestId }),
    ...(Object.keys(responseHeaders).length > 0 && { responseHeaders }),
  };
  const effective = status ?? facts.code;
  const wait = retryAfterMs(headers) ?? retryInfoMs(facts.details);
  const retryAfter = wait === undefined ? {} : { retryAfterMs: wait };

  const shouldRetry = headers["x-should-retry"];
  if (shouldRetry === "true") return new TransientError({ ...base, ...retryAfter });

  if (effective === 401 || effective === 403 || effective === 402) return new AuthError(base);
  if (
    has(
      facts,
      "authentication_error",
      "permission_error",
      "billing_error",
      "invalid_api_key",
      "UNAUTHENTICATED",
      "PERMISSION_DENIED",
      "MONTHLY_REQUEST_COUNT",
    )
  )
    return new AuthError(base);
  if (geminiDetail(facts.details, (d) => d.reason === "API_KEY_INVALID")) return new AuthError(base);

  if (isToolUnsupportedMessage(facts.message)) return new ToolUnsupportedError(base);
  if (
    has(facts, "context_length_exceeded", "exceed_context_size_error", "CONTENT_LENGTH_EXCEEDS_THRESHOLD") ||
    isOverflowMessage(facts.message)
  )
    return new ContextOverflowError(base);
  // Cerebras answers an overflow with a bare 400 or 413.
  if ((effective === 400 || effective === 413) && facts.message === "") return new ContextOverflowError(base);

  // Kiro's model is overloaded: not the account's rate, so no reason to wait as for one.
  if (has(facts, "INSUFFICIENT_MODEL_CAPACITY")) return new TransientError({ ...base, ...retryAfter });
  if (effective === 429 || has(facts, "rate_limit_error", "rate_limit_exceeded", "RESOURCE_EXHAUSTED")) {
    if (
      has(facts, "insufficient_quota", "enforced_spend_limit_reached") ||
      geminiDetail(facts.details, dailyQuota)
    ) {
      return new AuthError(base);
    }
    return new RateLimitError({ ...base, ...retryAfter });
  }
  if (effective === 408 || effective === 409 || (effective !== undefined && effective >= 500)) {
    return new TransientError({ ...base, ...retryAfter });
  }
  if (
    effective === undefined &&
    has(facts, "overloaded_error", "api_error", "server_error", "timeout_error", "UNAVAILABLE", "INTERNAL")
  ) {
    return new TransientError({ ...base, ...retryAfter });
  }
  if (shouldRetry === "false" || (effective !== undefined && effective >= 400))
    return new BadRequestError(base);
  // A request the model refused inside a stream (Responses' response.failed): sending it again will not help.
  if (has(facts, "invalid_request_error", "model_not_supported", "invalid_prompt"))
    return new BadRequestError(base);
  // An error inside a stream with no status or known type: the stream failed, try again.
  return new TransientError({ ...base, ...retryAfter });
}
