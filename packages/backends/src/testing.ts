// @ollie/backends/testing: a wire-exact mock LLM server and an in-process scripted backend, for testing
// agents, hooks and tools without a real model.

export { closedPort } from "./testing/closed-port.js";
export type { CopilotFailure } from "./testing/copilot/copilot-errors.js";
export {
  CopilotMock,
  type CopilotMockOptions,
} from "./testing/copilot/copilot-mock.js";
export {
  type CopilotModel as MockCopilotModel,
  type CopilotModelSpec,
  copilotModel,
  DEFAULT_COPILOT_MODELS,
} from "./testing/copilot/copilot-models.js";
export type { DeviceFlowOptions } from "./testing/copilot/device-flow.js";
export type { ExchangeFailure } from "./testing/copilot/token-exchange.js";
export type { KiroDeviceFlowOptions } from "./testing/kiro/kiro-auth.js";
export {
  type KiroIdcFixture,
  type KiroSocialFixture,
  writeKiroIdcToken,
  writeKiroSocialToken,
} from "./testing/kiro/kiro-fixtures.js";
export { KiroMock, type KiroMockCounts, type KiroMockOptions } from "./testing/kiro/kiro-mock.js";
export type { KiroStreamQuirks } from "./testing/kiro/kiro-render.js";
export { type MockFault, type MockReply, pieces } from "./testing/mock-reply.js";
export {
  MockLlmServer,
  type MockProvider,
  type MockServerOptions,
  type RecordedRequest,
} from "./testing/mock-server.js";
export type { MockExchange, MockResponder, ProviderMock } from "./testing/provider-mock.js";
export { checkRequest } from "./testing/rules/check-request.js";
export type { ParsedRequest, Rejection } from "./testing/rules/request-check.js";
export {
  ScriptedBackend,
  type ScriptedBackendOptions,
  type ScriptedCall,
} from "./testing/scripted-backend.js";
export { SignatureRegistry } from "./testing/signature-registry.js";
