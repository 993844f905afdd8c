import type { ApiDialect } from "../mock-provider.js";
import type { MockLlmServer } from "../mock-server.js";

export interface PostOptions {
  /** The model in the URL (Gemini); the others name it in the body. Default "gemini-test". */
  model?: string;
  /** Replaces the provider's default headers (Anthropic's: anthropic-version and a key). */
  headers?: Record<string, string>;
}

const DEFAULT_HEADERS: Record<ApiDialect, Record<string, string>> = {
  anthropic: { "anthropic-version": "2023-06-01", "x-api-key": "sk-ant-test" },
  gemini: { "x-goog-api-key": "AIza-test" },
  ollama: {},
  openai: { authorization: "Bearer sk-test" },
};

function pathOf(provider: ApiDialect, model: string): string {
  switch (provider) {
    case "anthropic":
      return "/v1/messages";
    case "gemini":
      return `/v1beta/models/${model}:streamGenerateContent?alt=sse`;
    case "ollama":
      return "/api/chat";
    case "openai":
      return "/v1/chat/completions";
  }
}

/** A chat request POSTed with fetch as the provider's client sends it: the status, and the body as text and JSON. */
export async function postChat(
  server: MockLlmServer,
  provider: ApiDialect,
  body: unknown,
  options: PostOptions = {},
): Promise<{ status: number; text: string; json: unknown }> {
  const response = await fetch(`${server.url}${pathOf(provider, options.model ?? "gemini-test")}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(options.headers ?? DEFAULT_HEADERS[provider]) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("application/json")
    ? JSON.parse(text)
    : undefined;
  return { status: response.status, text, json };
}
