import { json, type MockFault, type Rendered } from "../mock-reply.js";
import { openAiErrorBody, openAiOverflowBody } from "../wire/error-bodies.js";

// Copilot's own answers on the chat API (design doc A.11). Where the doc gives no exact body, the body
// follows Copilot's `{"error":{"message","code"}}` envelope and says so.

/** A failure of the chat API that no MockFault covers. */
export type CopilotFailure =
  /** 402: the free-tier quota or the premium requests are used up. `retryAfter`: seconds or an HTTP date. */
  { type: "quota"; retryAfter?: number | string };

export function text(status: number, body: string): Rendered {
  return { status, headers: { "content-type": "text/plain; charset=utf-8" }, frames: [body] };
}

export const TOKEN_EXPIRED = "unauthorized: token expired";
export const MISSING_EDITOR_VERSION = "bad request: missing Editor-Version header for IDE auth";
/** The text of this 401 is not documented; its status is what clients act on. */
export const MISSING_BEARER = "unauthorized: missing Bearer token in the Authorization header";

export const MODEL_NOT_SUPPORTED = "The requested model is not supported.";

export function modelNotSupported(): Rendered {
  return json(400, {
    error: {
      message: MODEL_NOT_SUPPORTED,
      code: "model_not_supported",
      param: "model",
      type: "invalid_request_error",
    },
  });
}

const copilotError = (status: number, message: string, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { message, code } }, headers);

/**
 * The answers of Copilot's gateway, the same on every chat endpoint: rate limits, auth, outages. Faults
 * that come from the model behind it (context overflow, no tools, a broken stream) are rendered per
 * endpoint instead; those give undefined here.
 */
export function gatewayFault(fault: MockFault, model: string): Rendered | undefined {
  switch (fault.type) {
    case "rate_limit":
      // `retry-after` only when the fault names one (as the other mocks do): a client honouring a made-up
      // default would stall the test.
      return copilotError(
        429,
        "Sorry, you have been rate-limited. Please wait a moment before trying again.",
        "rate_limited",
        {
          "x-ratelimit-exceeded": `user_model_rate_limited:${model}`,
          ...(fault.retryAfter !== undefined && { "retry-after": String(fault.retryAfter) }),
        },
      );
    case "server_error":
      return copilotError(
        fault.status,
        "The server had an error while processing your request.",
        "server_error",
      );
    case "overloaded":
      return copilotError(503, "The upstream model provider is currently overloaded.", "model_overloaded");
    case "auth":
      return text(401, TOKEN_EXPIRED);
    default:
      return undefined;
  }
}

export function copilotFailure(failure: CopilotFailure): Rendered {
  return copilotError(
    402,
    "You have exceeded your premium request allowance. Please upgrade your plan or wait for your allowance to renew.",
    "quota_exceeded",
    failure.retryAfter === undefined ? {} : { "retry-after": String(failure.retryAfter) },
  );
}

/**
 * The model's own refusals on the OpenAI-shaped endpoints. Copilot's bodies for them are not documented:
 * these are modelled on OpenAI's (`context_length_exceeded`), with the wording clients already match.
 */
export function openAiModelFault(fault: MockFault, model: string): Rendered | undefined {
  switch (fault.type) {
    case "context_overflow":
      return json(400, openAiOverflowBody());
    case "tool_unsupported":
      return json(
        400,
        openAiErrorBody(`${model} does not support tools`, "invalid_request_error", "tools", null),
      );
    default:
      return undefined;
  }
}
