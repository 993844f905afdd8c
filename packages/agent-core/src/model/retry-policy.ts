import { RateLimitError, TransientError, UnreachableError } from "@ollie/backends";

/** How the loop retries a model request that failed. The loop is the only layer that retries. */
export interface RetryPolicy {
  /** Attempts per model request, the first included. */
  maxAttempts: number;
  /** The first backoff; it doubles with each attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Each backoff is spread by up to this fraction either way, so clients do not retry in step. */
  jitter: number;
  /** A rate limit asking for a longer wait than this ends the turn instead of blocking it. */
  maxRetryAfterMs: number;
  /** A stream that delivers nothing for this long is treated as dropped. */
  idleTimeoutMs: number;
  /**
   * Attempts, the first included, when nothing answers at the backend's address (UnreachableError: the
   * connection refused, the host not found): a backend that is not there fails the turn in a second, not
   * after the whole backoff.
   */
  unreachableAttempts: number;
  /** The wait before trying an unreachable backend again. */
  unreachableDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 6,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  jitter: 0.2,
  maxRetryAfterMs: 10 * 60_000,
  idleTimeoutMs: 5 * 60_000,
  unreachableAttempts: 2,
  unreachableDelayMs: 300,
};

/** Exponential backoff with jitter for attempt `attempt` (1 = the first retry). */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const plain = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.max(0, Math.round(plain * (1 + policy.jitter * (2 * random() - 1))));
}

/** How many attempts, the first included, a request that failed with `error` gets in all. */
export function attemptsFor(policy: RetryPolicy, error: unknown): number {
  if (error instanceof UnreachableError) return Math.min(policy.maxAttempts, policy.unreachableAttempts);
  return policy.maxAttempts;
}

/** How long to wait before retrying `error` after attempt `attempt`, or undefined when it must not be retried. */
export function retryDelayMs(policy: RetryPolicy, error: unknown, attempt: number): number | undefined {
  if (attempt >= attemptsFor(policy, error)) return undefined;
  if (error instanceof UnreachableError) return policy.unreachableDelayMs;
  if (error instanceof RateLimitError) {
    if (error.retryAfterMs === undefined) return backoffMs(policy, attempt);
    return error.retryAfterMs <= policy.maxRetryAfterMs ? error.retryAfterMs : undefined;
  }
  if (error instanceof TransientError) return error.retryAfterMs ?? backoffMs(policy, attempt);
  return undefined;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
