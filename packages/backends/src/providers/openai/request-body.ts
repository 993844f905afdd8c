import { replayHistory } from "../../request/replay-history.js";
import type { Warn } from "../../request/warn.js";
import type { GenerationParams, Message, Tool } from "../../types.js";

export interface OpenAiBodyOptions {
  /** "system" (default) or "developer" for the system prompt's role. */
  systemRole?: "system" | "developer";
  /** The field that caps output: OpenAI wants max_completion_tokens, many servers only max_tokens. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
}

function toWire(m: Message, systemRole: string): Record<string, unknown> {
  switch (m.role) {
    case "system":
      return { role: systemRole, content: m.content };
    case "user":
      return { role: "user", content: m.content };
    case "assistant":
      return {
        role: "assistant",
        content: m.content === "" && m.toolCalls?.length ? null : m.content,
        ...(m.toolCalls?.length && {
          tool_calls: m.toolCalls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.rawArguments ?? JSON.stringify(c.arguments) },
          })),
        }),
      };
    case "tool":
      return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
  }
}

/** OpenAI's reasoning models (o1, o3, o4-mini, gpt-5, codex …), which refuse sampling settings other than the defaults. */
const REASONING_MODEL = /^(?:[\w.-]+\/)?(?:o\d|gpt-5|codex)/;

/**
 * temperature and top_p as OpenAI's APIs take them: left out, with a warning, for a reasoning model unless
 * they are its default (1), which it refuses to change.
 */
export function samplingSettings(
  model: string,
  params: GenerationParams,
  warn: Warn,
): Record<string, number> {
  const out: Record<string, number> = {};
  const fixedSampling = REASONING_MODEL.test(model);
  for (const [name, value] of [
    ["temperature", params.temperature],
    ["top_p", params.topP],
  ] as const) {
    if (value === undefined) continue;
    if (fixedSampling && value !== 1) warn(`${name} ${value} is not sent: ${model} accepts only the default`);
    else out[name] = value;
  }
  return out;
}

/**
 * The body of a streaming chat-completions request. Replies that say nothing are left out, every call keeps
 * its result, and OpenAI's reasoning models get no temperature or top_p (they refuse them; `warn` says so).
 */
export function openAiRequestBody(
  model: string,
  messages: readonly Message[],
  tools: readonly Tool[],
  params: GenerationParams,
  options: OpenAiBodyOptions = {},
  warn: Warn = () => {},
): Record<string, unknown> {
  const history = replayHistory(messages, { whitespaceIsEmpty: false, keepReasoning: () => false });
  const body: Record<string, unknown> = {
    model,
    stream: true,
    stream_options: { include_usage: true },
    messages: history.map((m) => toWire(m, options.systemRole ?? "system")),
  };
  if (tools.length > 0) {
    body.tools = tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  Object.assign(body, samplingSettings(model, params, warn));
  if (params.maxTokens !== undefined) body[options.maxTokensField ?? "max_tokens"] = params.maxTokens;
  if (params.stop?.length) body.stop = params.stop;
  if (params.seed !== undefined) body.seed = params.seed;
  if (params.reasoningEffort !== undefined) body.reasoning_effort = params.reasoningEffort;
  return { ...body, ...params.extra };
}
