// Each vendor's error body, shared by the mock's faults and its request checks.

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

/** OpenAI's error body (`code` is a string, or a number on some compatible servers, or null). */
export const openAiErrorBody = (
  message: string,
  type: string,
  param: string | null,
  code: string | number | null,
) => ({ error: { message, type, param, code } });

/** OpenAI's answer to a prompt that does not fit the model's context window. */
export const openAiOverflowBody = () =>
  openAiErrorBody(
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.",
    "invalid_request_error",
    "messages",
    "context_length_exceeded",
  );

/** Ollama's error body: a bare message. */
export const ollamaErrorBody = (message: string) => ({ error: message });
