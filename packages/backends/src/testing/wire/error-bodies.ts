/** Anthropic's error body, for every status (the request id is the mock's own). */
export const anthropicErrorBody = (type: string, message: string) => ({
  type: "error",
  error: { type, message },
  request_id: "req_mock",
});

/** Google's RPC error body: the HTTP code, the message, the RPC status name and typed details. */
export const geminiErrorBody = (code: number, status: string, message: string, details: unknown[] = []) => ({
  error: { code, message, status, details },
});
