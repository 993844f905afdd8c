/** The four public API dialects the mock server speaks at its root. */
export type ApiDialect = "openai" | "anthropic" | "ollama" | "gemini";

/** The wire dialects the mock server speaks: the four APIs, and Copilot and Kiro under their prefixes. */
export type MockProvider = ApiDialect | "copilot" | "kiro";

/** A request the mock server received. */
export interface RecordedRequest {
  provider: MockProvider;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined for GET). */
  body: unknown;
  /** The model named in the request (body or URL). */
  model: string;
  /** Set when the request broke its provider's rules: the message of the 400 it was answered with. */
  rejected?: string;
}
