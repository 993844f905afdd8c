import type { Readable } from "node:stream";
import { request } from "undici";
import { type ErrorSource, TransientError, UnreachableError } from "../errors.js";
import { classifyError, errorFacts } from "./classify.js";
import { redactText, redactUrl } from "./redact.js";
import type { ResponseHeaders } from "./response-headers.js";

export interface HttpResponse {
  status: number;
  headers: ResponseHeaders;
  body: Readable;
}

export interface RequestOptions {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /** Longest silence allowed between body chunks (default 10 minutes: reasoning models can be quiet). */
  idleTimeoutMs?: number;
}

/** What an aborted request throws: the signal's reason, or an AbortError. */
export function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/**
 * The system error codes that mean nothing is there to answer: a refused connection, a host or network that
 * cannot be found or reached. A reset, a timeout or a temporary name-service failure is not among them.
 */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);

/** The unreachable code of a failed connection (looking inside causes and the attempts of an AggregateError). */
export function unreachableCode(error: unknown, depth = 0): string | undefined {
  if (typeof error !== "object" || error === null || depth > 4) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === "string" && UNREACHABLE.has(code)) return code;
  if (Array.isArray(errors)) {
    const codes = errors.map((e) => unreachableCode(e, depth + 1));
    // Every address tried must have been unreachable (one that timed out may be there after all).
    if (codes.length > 0 && codes.every((c) => c !== undefined)) return codes[0];
  }
  return unreachableCode(cause, depth + 1);
}

/**
 * Sends a request. Network failures become TransientError — UnreachableError when nothing answers at the
 * address; an aborted signal rethrows its reason. The caller owns the body and must consume it or destroy it.
 */
export async function send(
  source: ErrorSource,
  url: string,
  options: RequestOptions = {},
): Promise<HttpResponse> {
  const idle = options.idleTimeoutMs ?? 600_000;
  try {
    const res = await request(url, {
      method: options.method ?? (options.body === undefined ? "GET" : "POST"),
      headers: {
        ...(options.body !== undefined && { "content-type": "application/json" }),
        ...options.headers,
      },
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
      ...(options.signal && { signal: options.signal }),
      headersTimeout: idle,
      bodyTimeout: idle,
    });
    return {
      status: res.statusCode,
      headers: res.headers as ResponseHeaders,
      body: res.body as unknown as Readable,
    };
  } catch (err) {
    if (options.signal?.aborted) throw abortReason(options.signal);
    const failure = {
      ...source,
      providerMessage: redactText(`request to ${redactUrl(url)} failed: ${describeFailure(err)}`),
    };
    const code = unreachableCode(err);
    throw code === undefined ? new TransientError(failure) : new UnreachableError({ ...failure, code });
  }
}

/** A network failure's message; an AggregateError (every address refused) has none of its own. */
function describeFailure(err: unknown): string {
  const error = err as Error & { errors?: unknown; code?: unknown };
  if (error.message) return error.message;
  if (Array.isArray(error.errors)) return error.errors.map((e) => (e as Error).message).join("; ");
  return typeof error.code === "string" ? error.code : String(err);
}

/** Reads a whole (small) body as text, at most 1 MiB. */
export async function readText(body: Readable, signal?: AbortSignal): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size <= 1024 * 1024) parts.push(chunk as Buffer);
    }
  } catch (err) {
    if (signal?.aborted) throw abortReason(signal);
    throw err;
  }
  return Buffer.concat(parts).toString("utf8");
}

/** Reads a whole (small) body and parses it when it is JSON (`json` is undefined when it is not). */
async function readJson(res: HttpResponse, signal?: AbortSignal): Promise<{ json: unknown; text: string }> {
  const text = await readText(res.body, signal);
  try {
    return { json: JSON.parse(text) as unknown, text };
  } catch {
    return { json: undefined, text };
  }
}

/** An answer read whatever its status: its JSON object's fields (none when it is not one), text and headers. */
export interface JsonAnswer {
  status: number;
  fields: Record<string, unknown>;
  text: string;
  headers: ResponseHeaders;
}

/**
 * Sends a request (GET, or POST with a JSON body) and reads the answer whatever its status: token services
 * and OAuth endpoints answer their refusals as JSON, and a proxy's error page is kept as text. Network
 * failures are typed as for any request.
 */
export async function askJson(
  source: ErrorSource,
  url: string,
  options: RequestOptions,
): Promise<JsonAnswer> {
  const res = await send(source, url, {
    ...options,
    headers: { accept: "application/json", ...options.headers },
  });
  const { json, text } = await readJson(res, options.signal);
  const fields = typeof json === "object" && json !== null && !Array.isArray(json) ? json : {};
  return { status: res.status, fields: fields as Record<string, unknown>, text, headers: res.headers };
}

/** The typed error for a response whose status is not 2xx (its body is consumed). */
async function errorFromResponse(source: ErrorSource, res: HttpResponse, signal?: AbortSignal) {
  const { json, text } = await readJson(res, signal).catch(() => ({ json: undefined, text: "" }));
  return classifyError(source, res.status, errorFacts(json, text.trim()), res.headers);
}

/** Sends a request and returns the response when its status is 2xx; any other becomes a typed error. */
export async function sendOk(source: ErrorSource, url: string, options: RequestOptions) {
  const res = await send(source, url, options);
  if (res.status < 200 || res.status > 299) throw await errorFromResponse(source, res, options.signal);
  return res;
}

/** GETs JSON, with failures typed like a chat request's. */
export async function getJson(
  source: ErrorSource,
  url: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
) {
  const res = await sendOk(source, url, { headers, signal });
  return JSON.parse(await readText(res.body, signal)) as unknown;
}

/** POSTs JSON and returns JSON (for Ollama's /api/show), failures typed. */
export async function postJson(
  source: ErrorSource,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal?: AbortSignal,
) {
  const res = await sendOk(source, url, { headers, body, signal });
  return JSON.parse(await readText(res.body, signal)) as unknown;
}
