/** The wire dialects the mock server speaks. */
export type MockProvider = "openai" | "anthropic" | "ollama" | "gemini";
