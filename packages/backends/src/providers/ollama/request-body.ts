import { replayHistory } from "../../request/replay-history.js";
import type { GenerationParams, Message, Tool } from "../../types.js";

export interface OllamaBodyOptions {
  /** The context window to allocate (`options.num_ctx`); Ollama's default depends on memory. */
  numCtx?: number;
}

function toWire(m: Message): Record<string, unknown> {
  switch (m.role) {
    case "system":
    case "user":
      return { role: m.role, content: m.content };
    case "assistant": {
      const thinking = m.reasoning?.map((r) => r.text).join("") ?? "";
      return {
        role: "assistant",
        content: m.content,
        ...(thinking && { thinking }),
        ...(m.toolCalls?.length && {
          tool_calls: m.toolCalls.map((c, index) => ({
            id: c.id,
            function: { index, name: c.name, arguments: c.arguments },
          })),
        }),
      };
    }
    case "tool":
      return { role: "tool", tool_name: m.name, tool_call_id: m.toolCallId, content: m.content };
  }
}

/**
 * The body of a streaming /api/chat request. Tool arguments travel as objects, not strings; earlier
 * reasoning goes back as `thinking` text, whoever wrote it (Ollama signs nothing); the context window is
 * always asked for, since Ollama's own default depends on the machine and it silently drops what overflows.
 */
export function ollamaRequestBody(
  model: string,
  messages: readonly Message[],
  tools: readonly Tool[],
  params: GenerationParams,
  options: OllamaBodyOptions = {},
): Record<string, unknown> {
  const sampling: Record<string, unknown> = {};
  if (options.numCtx !== undefined) sampling.num_ctx = options.numCtx;
  if (params.maxTokens !== undefined) sampling.num_predict = params.maxTokens;
  if (params.temperature !== undefined) sampling.temperature = params.temperature;
  if (params.topP !== undefined) sampling.top_p = params.topP;
  if (params.seed !== undefined) sampling.seed = params.seed;
  if (params.stop?.length) sampling.stop = params.stop;
  const body: Record<string, unknown> = {
    model,
    stream: true,
    messages: replayHistory(messages, { whitespaceIsEmpty: false, keepReasoning: () => true }).map(toWire),
  };
  if (tools.length > 0) {
    body.tools = tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  if (Object.keys(sampling).length > 0) body.options = sampling;
  if (params.reasoningEffort !== undefined)
    body.think = params.reasoningEffort === "minimal" ? "low" : params.reasoningEffort;
  else if (params.reasoningBudget !== undefined) body.think = params.reasoningBudget > 0;
  return { ...body, ...params.extra };
}
