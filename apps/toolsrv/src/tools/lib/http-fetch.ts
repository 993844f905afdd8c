import { netProblem } from "./net-problem.js";
import { ToolError } from "./tool-io.js";

/** One redirect taken: the URL that answered with it, and its status. */
export interface Hop {
  url: string;
  status: number;
}

/** The response that ended a chain of redirects, the URL that gave it, and the redirects on the way. */
export interface Arrival {
  response: Response;
  url: URL;
  hops: Hop[];
}

export interface FetchOptions {
  maxRedirects: number;
  /** Ends the requests and the reading of the body; its timeout is worded as `seconds`. */
  signal: AbortSignal;
  seconds: number;
  headers: Record<string, string>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const isWebUrl = (url: URL) => url.protocol === "http:" || url.protocol === "https:";

/**
 * GETs `start` and follows redirects itself (fetch's manual mode), so each hop is known and bounded: at most
 * `maxRedirects`, each to http or https only. Failures are ToolErrors naming the URL and the cause.
 */
export async function fetchFollowing(start: URL, options: FetchOptions): Promise<Arrival> {
  const hops: Hop[] = [];
  let url = start;
  for (;;) {
    let response: Response;
    try {
      response = await fetch(url, { redirect: "manual", signal: options.signal, headers: options.headers });
    } catch (error) {
      throw await netProblem(error, url, options.signal, options.seconds);
    }
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return { response, url, hops };
    await response.body?.cancel().catch(() => {});
    hops.push({ url: url.href, status: response.status });
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new ToolError(`${url.href} redirected (${response.status}) to '${location}', which is not a URL`);
    }
    if (!isWebUrl(next))
      throw new ToolError(`${url.href} redirected to ${next.href}: only http and https are followed`);
    if (hops.length > options.maxRedirects)
      throw new ToolError(
        `${start.href}: more than ${options.maxRedirects} redirects (a loop?): ${redirectChain(hops, next)}`,
      );
    url = next;
  }
}

/** `A (301) → B (302) → C`, the first and last few hops of a long chain. */
export function redirectChain(hops: Hop[], end: URL): string {
  const shown = hops.length > 6 ? [...hops.slice(0, 3), undefined, ...hops.slice(-2)] : hops;
  return [...shown.map((h) => (h ? `${h.url} (${h.status})` : "…")), end.href].join(" → ");
}

/** A body read up to a limit. */
export interface BodyRead {
  body: Buffer;
  /** Why reading stopped before the end: the byte limit, the time limit, or a broken connection. */
  stopped?: { by: "limit" } | { by: "time" } | { by: "broken"; cause: string };
}

/**
 * Reads at most `maxBytes` of a response's body; past that it stops reading (the rest is never fetched).
 * When the connection fails or time runs out partway, what arrived is kept and `stopped` says why.
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const body = () => Buffer.concat(chunks, bytes);
  if (!response.body) return { body: body() };
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { body: body() };
      const room = maxBytes - bytes;
      chunks.push(Buffer.from(value.buffer, value.byteOffset, Math.min(room, value.byteLength)));
      bytes += Math.min(room, value.byteLength);
      if (value.byteLength > room) {
        await reader.cancel().catch(() => {});
        return { body: body(), stopped: { by: "limit" } };
      }
    }
  } catch (error) {
    if (signal.aborted) return { body: body(), stopped: { by: "time" } };
    const cause = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
    return { body: body(), stopped: { by: "broken", cause } };
  }
}
