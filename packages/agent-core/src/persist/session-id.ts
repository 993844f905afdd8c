import { randomBytes } from "node:crypto";

/**
 * A new session id, `<unix-nanoseconds>-<6 hex>`: ids sort by creation time, and the random suffix keeps
 * two made in the same nanosecond apart.
 */
export function newSessionId(): string {
  const nowMs = performance.timeOrigin + performance.now();
  const wholeMs = Math.floor(nowMs);
  const nanos = BigInt(wholeMs) * 1_000_000n + BigInt(Math.floor((nowMs - wholeMs) * 1e6));
  return `${nanos}-${randomBytes(3).toString("hex")}`;
}
