// @ollie/backends/testing: a wire-exact mock LLM server and an in-process scripted backend, for testing
// agents, hooks and tools without a real model.

export { closedPort } from "./testing/closed-port.js";
export { type MockFault, type MockReply, pieces } from "./testing/mock-reply.js";
export {
  MockLlmServer,
  type MockProvider,
  type MockServerOptions,
  type RecordedRequest,
} from "./testing/mock-server.js";
export { checkRequest } from "./testing/rules/check-request.js";
export type { ParsedRequest, Rejection } from "./testing/rules/request-check.js";
export {
  ScriptedBackend,
  type ScriptedBackendOptions,
  type ScriptedCall,
} from "./testing/scripted-backend.js";
export { SignatureRegistry } from "./testing/signature-registry.js";
