/** What the turnError hook's payload says of a failure, besides the fields every payload carries. */
export function errorFields(error: unknown): Record<string, unknown> {
  const e = error as {
    name?: string;
    message?: string;
    status?: number;
    provider?: string;
    profile?: string;
    retryAfterMs?: number;
  };
  return {
    error: e?.message ?? String(error),
    error_type: e?.name,
    status: e?.status,
    // A BackendError's provider kind (openai, anthropic…) and the backend's configured name.
    provider: e?.provider,
    backend: e?.profile,
    retry_after_ms: e?.retryAfterMs,
  };
}
