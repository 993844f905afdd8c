// The attribute, span and metric names Ollie emits. The GenAI ones follow the OpenTelemetry GenAI semantic
// conventions v0.1.0 (open-telemetry/semantic-conventions-genai, status Development), copied here rather than
// imported: @opentelemetry/semantic-conventions marks its GenAI names deprecated since they moved, and asks
// instrumentations not to import its unstable entry at run time. The `ollie.*` names are Ollie's own.

/** The conventions followed, as their release names them; also each tracer's and meter's version. */
export const GENAI_SEMCONV_VERSION = "0.1.0";

export const ATTR = {
  errorType: "error.type",
  serverAddress: "server.address",
  serverPort: "server.port",
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  requestModel: "gen_ai.request.model",
  requestStream: "gen_ai.request.stream",
  requestMaxTokens: "gen_ai.request.max_tokens",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  responseTimeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  usageCacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  usageCacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  usageReasoningOutputTokens: "gen_ai.usage.reasoning.output_tokens",
  tokenType: "gen_ai.token.type",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  systemInstructions: "gen_ai.system_instructions",
  // Ollie's own.
  agent: "ollie.agent",
  agentId: "ollie.agent.id",
  backend: "ollie.backend",
  purpose: "ollie.purpose",
  turnStatus: "ollie.turn.status",
  turnSteps: "ollie.turn.steps",
  costUsd: "ollie.cost.usd",
  toolCached: "ollie.tool.cached",
  toolExitCode: "ollie.tool.exit_code",
  toolSignal: "ollie.tool.signal",
  toolTimedOut: "ollie.tool.timed_out",
  toolCancelled: "ollie.tool.cancelled",
  toolDetached: "ollie.tool.detached",
  /** The number of a tool process under toolsrv's proc/ (not an operating-system pid). */
  toolProc: "ollie.tool.proc",
  /** The resource limits a tool process reached (`processes`, `memory`, `cpu_time`, `file_size`). */
  toolLimitsReached: "ollie.tool.limits_reached",
  mcpMethodName: "mcp.method.name",
  sandboxPolicy: "ollie.sandbox.policy",
  hookEvent: "ollie.hook.event",
  hookAction: "ollie.hook.action",
  processId: "process.pid",
  link: "ollie.link",
  retryAttempt: "ollie.retry.attempt",
  retryDelayMs: "ollie.retry.delay_ms",
  compactionTrigger: "ollie.compaction.trigger",
  compactionTokensBefore: "ollie.compaction.tokens_before",
  compactionTokensAfter: "ollie.compaction.tokens_after",
  compactionCompacted: "ollie.compaction.compacted",
} as const;

/** `gen_ai.operation.name`'s values Ollie emits. */
export const OPERATION = {
  chat: "chat",
  invokeAgent: "invoke_agent",
  executeTool: "execute_tool",
} as const;

export const METRIC = {
  tokenUsage: "gen_ai.client.token.usage",
  operationDuration: "gen_ai.client.operation.duration",
  timeToFirstChunk: "gen_ai.client.operation.time_to_first_chunk",
  invokeAgentDuration: "gen_ai.invoke_agent.duration",
  executeToolDuration: "gen_ai.execute_tool.duration",
  toolFailures: "ollie.tool.failures",
  cost: "ollie.cost.usage",
  activeSessions: "ollie.sessions.active",
  activeAgents: "ollie.agents.active",
} as const;

/** The conventions' advised histogram buckets. */
export const BUCKETS = {
  tokens: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
  operationSeconds: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
  agentSeconds: [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6],
} as const;

/**
 * `gen_ai.provider.name` for an Ollie backend's wire format: the conventions' well-known values where one
 * fits, the format's own name otherwise (the conventions allow custom values).
 */
export function providerName(provider: string): string {
  switch (provider) {
    case "openai":
    case "responses":
      return "openai";
    case "anthropic":
      return "anthropic";
    case "gemini":
      return "gcp.gemini";
    default:
      return provider;
  }
}
