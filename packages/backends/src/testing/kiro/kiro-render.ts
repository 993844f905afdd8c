import { randomBytes } from "node:crypto";
import {
  argsText,
  json,
  type MockFault,
  type MockReply,
  pieces,
  type Rendered,
  retryAfterHeader,
} from "../mock-reply.js";
import { encodeEventStreamMessage } from "./event-stream-encoder.js";

/**
 * Stream faults of B.7 that a MockReply cannot express, for one response (see KiroMock.nextStreamQuirks).
 * Several may be combined.
 */
export interface KiroStreamQuirks {
  /** Flip the message CRC of the frame at this index (0-based, counting every frame of the body). */
  corruptCrcAt?: number;
  /**
   * Keep the connection open this many milliseconds after the last frame before ending it, as Kiro's
   * HTTP/2 streams may. The body then goes out in one write (the reply's writeSize/delayMs are not used).
   */
  keepOpenMs?: number;
  /** Send the first text event twice. */
  duplicateText?: boolean;
  /** Send every event of the first tool call twice, same toolUseId. */
  duplicateToolCall?: boolean;
  /** Cut the last tool call's input about halfway and never send its `stop: true`. */
  truncateToolInput?: boolean;
  /** After the text, end the stream with a `:message-type: error` message. */
  errorMessage?: { code: string; message: string };
  /** The exception a `stream_error` fault ends with (default InternalServerException). */
  streamException?: "InternalServerException" | "ThrottlingException";
}

/** What the stream needs to know beyond the reply. */
export interface KiroRenderContext {
  quirks: KiroStreamQuirks;
  /** Context window of the model, for `contextUsagePercentage`. */
  contextWindow: number;
  /** Size of the request body, to estimate the context used when the reply gives no input tokens. */
  requestChars: number;
  /** `meteringEvent.usage` of this reply. */
  credits: number;
}

const STREAM_EXCEPTIONS = {
  InternalServerException: "Encountered an unexpected error when processing the request, please try again.",
  ThrottlingException: "Too many requests, please wait before trying again.",
};

const BEARER_INVALID = "The bearer token included in the request is invalid.";

/** Kiro's error answer before any stream: `{message, reason}` with the AWS error type for SDK-style clients. */
export function kiroError(
  status: number,
  errorType: string,
  message: string,
  reason?: string | null,
  headers: Record<string, string> = {},
): Rendered {
  const body = reason === undefined ? { message } : { message, reason };
  return json(status, body, { "x-amzn-errortype": errorType, ...headers });
}

export const improperlyFormed = (reason: string | null = null) =>
  kiroError(400, "ValidationException", "Improperly formed request.", reason);
export const inputTooLong = () =>
  kiroError(400, "ValidationException", "Input is too long.", "CONTENT_LENGTH_EXCEEDS_THRESHOLD");
export const bearerInvalid = () => kiroError(403, "AccessDeniedException", BEARER_INVALID);

/** The HTTP error a fault is answered with before any stream; undefined for `stream_error`, a 200. */
export function renderKiroFault(fault: MockFault): Rendered | undefined {
  switch (fault.type) {
    case "rate_limit":
      // Retry-After is the mock's addition for clients that honour it: the document names no such header.
      return kiroError(429, "ThrottlingException", "Rate limit exceeded", null, retryAfterHeader(fault));
    case "overloaded":
      return kiroError(
        429,
        "ThrottlingException",
        "I am experiencing high traffic, please try again shortly.",
        "INSUFFICIENT_MODEL_CAPACITY",
      );
    case "server_error":
      return kiroError(
        fault.status,
        fault.status === 500 ? "InternalServerException" : "ServiceUnavailableException",
        "Encountered an unexpected error when processing the request, please try again.",
        null,
      );
    case "context_overflow":
      return inputTooLong();
    case "auth":
      return bearerInvalid();
    case "tool_unsupported":
      // Not applicable: every Kiro model takes tools, so Kiro has no such error. What it says to a tool
      // definition it will not take is its generic 400.
      return improperlyFormed();
    case "stream_error":
      return undefined;
  }
}

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A fresh tool use id shaped like Kiro's; unique, since Kiro refuses a history reusing one. */
const toolUseId = () => `tooluse_${[...randomBytes(22)].map((b) => ALPHANUMERIC[b % 62]).join("")}`;

function frame(headers: Record<string, string>, payload: unknown): Uint8Array {
  return encodeEventStreamMessage(headers, typeof payload === "string" ? payload : JSON.stringify(payload));
}

const event = (type: string, payload: unknown) =>
  frame({ ":event-type": type, ":content-type": "application/json", ":message-type": "event" }, payload);

const exception = (type: string, message: string) =>
  frame(
    { ":exception-type": type, ":content-type": "application/json", ":message-type": "exception" },
    { message },
  );

/**
 * The reply as the `assistantResponseEvent` contents Kiro streams: reasoning comes first inside
 * `<thinking>` tags, as Kiro clients parse it out of the text, and each tag is cut in two across events so
 * a parser has to buffer partial tags.
 */
function textPieces(reply: MockReply, size: number): string[] {
  const text = reply.text ?? "";
  if (!reply.reasoning) return pieces(text, size);
  const chars = [...`<thinking>${reply.reasoning}</thinking>${text ? `\n\n${text}` : ""}`];
  const closeAt = "<thinking>".length + [...reply.reasoning].length;
  const cuts = new Set([4, closeAt + 5]);
  for (let at = size; at < chars.length; at += size) cuts.add(at);
  const out: string[] = [];
  let from = 0;
  for (const at of [...cuts, chars.length].sort((a, b) => a - b)) {
    if (at > from) out.push(chars.slice(from, at).join(""));
    from = Math.max(from, at);
  }
  return out;
}

/** A tool call's input split into at least three fragments (padded with empty ones for a tiny input). */
function inputFragments(input: string, size: number): string[] {
  const length = [...input].length;
  const parts = pieces(input, Math.max(1, Math.min(size, Math.ceil(length / 3))));
  while (parts.length < 3) parts.unshift("");
  return parts;
}

/** A scripted reply (no HTTP fault) as Kiro's event stream: the frames of an HTTP 200 body. */
export function renderKiroStream(reply: MockReply, context: KiroRenderContext): Rendered {
  const { quirks } = context;
  const size = reply.chunkSize ?? 4;
  const frames: Uint8Array[] = [];
  const done = (): Rendered => {
    if (quirks.corruptCrcAt !== undefined && frames[quirks.corruptCrcAt]) {
      const bad = Uint8Array.from(frames[quirks.corruptCrcAt]!);
      bad[bad.length - 1]! ^= 0xff;
      frames[quirks.corruptCrcAt] = bad;
    }
    return { status: 200, headers: { "content-type": "application/vnd.amazon.eventstream" }, frames };
  };

  const fault = reply.fault?.type === "stream_error" ? reply.fault : undefined;
  const texts = fault ? pieces(fault.afterText ?? "partial", size) : textPieces(reply, size);
  for (const [i, content] of texts.entries()) {
    frames.push(event("assistantResponseEvent", { content }));
    if (i === 0 && quirks.duplicateText) frames.push(event("assistantResponseEvent", { content }));
  }
  if (fault) {
    const type = quirks.streamException ?? "InternalServerException";
    frames.push(exception(type, STREAM_EXCEPTIONS[type]));
    return done();
  }
  if (quirks.errorMessage) {
    const { code, message } = quirks.errorMessage;
    frames.push(frame({ ":error-code": code, ":error-message": message, ":message-type": "error" }, message));
    return done();
  }

  const calls = reply.toolCalls ?? [];
  for (const [i, call] of calls.entries()) {
    const id = call.id ?? toolUseId();
    const head = { name: call.name, toolUseId: id };
    let fragments = inputFragments(argsText(call.arguments), size);
    const truncated = quirks.truncateToolInput && i === calls.length - 1;
    if (truncated) fragments = fragments.slice(0, Math.max(1, Math.floor(fragments.length / 2)));
    const callFrames = fragments.map((input) => event("toolUseEvent", { ...head, input }));
    if (!truncated) callFrames.push(event("toolUseEvent", { ...head, stop: true }));
    frames.push(...callFrames);
    if (i === 0 && quirks.duplicateToolCall) frames.push(...callFrames);
  }
  if (reply.stopReason === "length") {
    // kiro.rs maps this exception to max_tokens; it ends the stream.
    frames.push(
      exception("ContentLengthExceededException", "The response exceeded the maximum content length."),
    );
    return done();
  }

  frames.push(event("meteringEvent", { unit: "credit", unitPlural: "credits", usage: context.credits }));
  const u = reply.usage;
  if (u) {
    // [U] in the design document: the SDK models metadataEvent.tokenUsage, but no gateway has seen Kiro
    // send it. The mock sends it only when the script gives usage, so clients can be tested either way.
    const input = u.input ?? 0;
    const cacheRead = u.cachedInput ?? 0;
    const cacheWrite = u.cacheCreation ?? 0;
    const output = u.output ?? 0;
    frames.push(
      event("metadataEvent", {
        tokenUsage: {
          // `input` counts every input token, cached or not, as the other wire renderers read it.
          uncachedInputTokens: input - cacheRead - cacheWrite,
          outputTokens: output,
          totalTokens: input + output,
          cacheReadInputTokens: cacheRead,
          cacheWriteInputTokens: cacheWrite,
        },
      }),
    );
  }
  // Without usage, the request's own size (about 4 characters a token) stands in for the context used.
  const used = u?.input ?? context.requestChars / 4;
  const percentage = Math.round((used / context.contextWindow) * 10_000) / 100;
  frames.push(event("contextUsageEvent", { contextUsagePercentage: percentage }));
  return done();
}
