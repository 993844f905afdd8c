import type { StopReason } from "../types.js";

/** A failure the mock server answers with, in the provider's own error format. */
export type MockFault =
  /** 429. `retryAfter`: seconds or an HTTP date for `Retry-After` (Gemini: a RetryInfo delay in the body). */
  | { type: "rate_limit"; retryAfter?: number | string }
  | { type: "server_error"; status: 500 | 502 | 503 }
  /** Anthropic 529 overloaded_error; 503 elsewhere. */
  | { type: "overloaded" }
  | { type: "context_overflow" }
  | { type: "tool_unsupported" }
  | { type: "auth" }
  /**
   * A 200 whose stream carries an error after `afterText` (default "partial"). `pretty`: Gemini sends the
   * error object pretty-printed over several raw lines, as Google's servers do.
   */
  | { type: "stream_error"; afterText?: string; pretty?: boolean };

/** One scripted reply. Without `fault`, a successful stream in the provider's exact wire format. */
export interface MockReply {
  text?: string;
  reasoning?: string;
  /**
   * Anthropic/Gemini signature for the reasoning. Without one the mock issues a fresh signature; either
   * way it is recorded for this provider and model, and only then accepted when a request replays it.
   */
  reasoningSignature?: string;
  /** Anthropic: the opaque `data` of a `redacted_thinking` block (recorded like a signature). */
  redactedReasoning?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments: Record<string, unknown> | string }>;
  usage?: {
    /** `null`: Ollama leaves `prompt_eval_count` out, as it does for a KV-cached prompt. */
    input?: number | null;
    output?: number;
    cachedInput?: number;
    cacheCreation?: number;
    reasoning?: number;
    /** Provider-reported cost (OpenRouter). */
    cost?: number;
  };
  stopReason?: StopReason;
  /** Characters per text, reasoning and argument fragment (default 4): many small chunks. */
  chunkSize?: number;
  /** Milliseconds between frames: slow tokens. */
  delayMs?: number;
  /** Stop after this many frames, without the terminal event, and drop the connection. */
  cutAfter?: number;
  fault?: MockFault;
  /** CRLF line endings (Gemini's own). */
  crlf?: boolean;
  /** `: keep-alive` comment lines between events (SSE providers). */
  keepAlive?: boolean;
  /** Anthropic `ping` events between events. */
  ping?: boolean;
  /** Write the body so that a multi-byte UTF-8 character is split between two TCP writes. */
  splitUtf8?: boolean;
  /**
   * Write the body in slices of this many bytes, whatever its frames: a frame split anywhere (inside a
   * header, inside a character) and, with a large size, several frames in one write.
   */
  writeSize?: number;
}

/** A response, rendered: status, headers, and the frames of the body (text or binary) written one after another. */
export interface Rendered {
  status: number;
  headers: Record<string, string>;
  frames: Array<string | Uint8Array>;
}

/** A frame as the bytes written. */
export function frameBytes(frame: string | Uint8Array): Buffer {
  return typeof frame === "string" ? Buffer.from(frame, "utf8") : Buffer.from(frame);
}

/** The whole body of a rendered response, as text. */
export function bodyText(rendered: Rendered): string {
  return Buffer.concat(rendered.frames.map(frameBytes)).toString("utf8");
}

/** Splits text into pieces of `size` characters (code points kept whole). */
export function pieces(text: string, size = 4): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

export function argsText(args: Record<string, unknown> | string): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

export function sse(data: unknown, reply: MockReply, event?: string): string {
  const nl = reply.crlf ? "\r\n" : "\n";
  const body = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}${nl}` : ""}data: ${body}${nl}${nl}`;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Rendered {
  return {
    status,
    headers: { "content-type": "application/json", ...headers },
    frames: [JSON.stringify(body)],
  };
}

/** `Retry-After` header for a rate-limit fault. */
export function retryAfterHeader(fault: { retryAfter?: number | string }): Record<string, string> {
  return fault.retryAfter === undefined ? {} : { "retry-after": String(fault.retryAfter) };
}
