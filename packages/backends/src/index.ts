// The public face of @ollie/backends: every name exported here is part of the API.

export type { Backend, ServerAddress } from "./backend.js";
export {
  type BackendsConf,
  BackendsConfError,
  type CredentialSource,
  loadBackendsConf,
  PROVIDER_TYPES,
  type Profile,
  type ProviderType,
  parseBackendsConf,
} from "./config/backends-conf.js";
export { CredentialStoreError, credentialStoreFile } from "./config/credential-store.js";
export { CredentialError, resolveCredential } from "./config/credentials.js";
export { BackendPool, type CreateOptions, createBackend, UnknownProfileError } from "./config/pool.js";
export { Secret } from "./config/secret.js";
export { costOf, pricedInDollars } from "./cost/cost.js";
export { COPILOT_PREMIUM_MULTIPLIERS, type ModelPrice, PRICES, priceOf } from "./cost/price-table.js";
export {
  AuthError,
  BackendError,
  type BackendErrorInit,
  BadRequestError,
  ContextOverflowError,
  RateLimitError,
  RetryableError,
  ToolUnsupportedError,
  TransientError,
  UnreachableError,
} from "./errors.js";
export { isOverflowMessage } from "./http/overflow.js";
export { loadSandbox, SandboxNotInstalledError } from "./load-sandbox.js";
export { AnthropicBackend, type AnthropicOptions } from "./providers/anthropic/anthropic-backend.js";
export { CopilotBackend, type CopilotOptions } from "./providers/copilot/copilot-backend.js";
export {
  type CopilotLoginOptions,
  importCopilotLogin,
  loginCopilot,
  type StoredLogin,
} from "./providers/copilot/copilot-login.js";
export { pluginTokenFiles } from "./providers/copilot/github-token.js";
export { DEMO_MODEL, DemoBackend, type DemoOptions } from "./providers/demo/demo-backend.js";
export { type DeviceCode, LoginError } from "./providers/device-login.js";
export { GeminiBackend, type GeminiOptions } from "./providers/gemini/gemini-backend.js";
export { KiroBackend, type KiroOptions } from "./providers/kiro/kiro-backend.js";
export { type KiroLogin, type KiroLoginOptions, loginKiro } from "./providers/kiro/kiro-login.js";
export {
  OLLAMA_DEFAULT_NUM_CTX,
  OllamaBackend,
  type OllamaOptions,
} from "./providers/ollama/ollama-backend.js";
export { OpenAiBackend, type OpenAiOptions } from "./providers/openai/openai-backend.js";
export { estimateMessageTokens, estimateTextTokens, estimateTokens } from "./tokens/token-estimate.js";
export type {
  AssistantMessage,
  GenerationParams,
  Message,
  ModelInfo,
  Origin,
  ReasoningBlock,
  StopReason,
  StreamEvent,
  SystemMessage,
  Tool,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "./types.js";
