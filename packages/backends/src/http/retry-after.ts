import type { ResponseHeaders } from "./response-headers.js";

function header(headers: ResponseHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Milliseconds in a Go-style duration ("6m0s", "1.5s", "12ms"), or undefined. */
export function parseDuration(text: string): number | undefined {
  const units: Record<string, number> = {
    h: 3_600_000,
    m: 60_000,
    s: 1000,
    ms: 1,
    us: 0.001,
    µs: 0.001,
    ns: 1e-6,
  };
  let total = 0;
  let matched = "";
  for (const m of text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)) {
    total += Number(m[1]) * units[m[2]!]!;
    matched += m[0];
  }
  return matched.length > 0 && matched === text.trim() ? total : undefined;
}

/**
 * How long the provider asks a client to wait, in milliseconds: `retry-after-ms`, then `retry-after`
 * (seconds or an HTTP date), then Anthropic's `anthropic-ratelimit-*-reset` times, then OpenAI's
 * `x-ratelimit-reset-*` durations. Undefined when none says.
 */
export function retryAfterMs(headers: ResponseHeaders, now = Date.now()): number | undefined {
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const ra = header(headers, "retry-after");
  if (ra !== undefined) {
    const seconds = Number(ra);
    if (ra.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(ra);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const waits: number[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const v = Array.isArray(value) ? value[0] : value;
    if (v === undefined) continue;
    if (/^anthropic-ratelimit-.*-reset$/.test(name)) {
      const at = Date.parse(v);
      if (!Number.isNaN(at)) waits.push(Math.max(0, at - now));
    } else if (/^x-ratelimit-reset-/.test(name)) {
      const d = parseDuration(v);
      if (d !== undefined) waits.push(d);
    }
  }
  return waits.length > 0 ? Math.max(...waits) : undefined;
}

/** Gemini's `google.rpc.RetryInfo` delay ("31s", "0.1s") in an error body's details, in milliseconds. */
export function retryInfoMs(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const delay = (d as { retryDelay?: unknown })?.retryDelay;
    if (typeof delay === "string") {
      const ms = parseDuration(delay);
      if (ms !== undefined) return ms;
    }
  }
  return undefined;
}
