/**
 * What tells a waiter that it is no longer wanted: an AbortSignal, or anything with an `onAbort` listener as
 * a file handler's context has (FileContext). A request's `onAbort` costs far less than its AbortSignal (about
 * a kilobyte each), which matters where clients park many requests: blocking reads.
 */
export type AbortSource = AbortSignal | { onAbort(listener: (reason: unknown) => void): () => void };

/**
 * Calls `listener` once with the reason when `source` aborts (at once if it already has); the function
 * returned stops listening.
 */
export function whenAborted(source: AbortSource, listener: (reason: unknown) => void): () => void {
  if (!(source instanceof AbortSignal)) return source.onAbort(listener);
  if (source.aborted) {
    listener(source.reason);
    return () => {};
  }
  const onAbort = () => listener(source.reason);
  source.addEventListener("abort", onAbort, { once: true });
  return () => source.removeEventListener("abort", onAbort);
}
