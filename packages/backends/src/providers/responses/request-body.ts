import { replayHistory, signedHere } from "../../request/replay-history.js";
import type { Warn } from "../../request/warn.js";
import type { AssistantMessage, GenerationParams, Message, Tool } from "../../types.js";
import { samplingSettings } from "../openai/request-body.js";

export interface ResponsesBodyOptions {
  /**
   * The provider the backend stamps on its replies ("copilot", "openai"): reasoning goes back only to the
   * provider and model whose encrypted_content it carries.
   */
  provider: string;
}

type Item = Record<string, unknown>;

/**
 * A reply's items in output order: its reasoning (the encrypted payload it was streamed with, kept as the
 * block's signature), its text, its calls. Reasoning items go without their `id`: with `store: false` the
 * API has no item of that id and refuses a reference to one.
 */
function assistantItems(m: AssistantMessage): Item[] {
  const items: Item[] = [];
  for (const r of m.reasoning ?? []) {
    items.push({
      type: "reasoning",
      summary: r.text === "" ? [] : [{ type: "summary_text", text: r.text }],
      encrypted_content: r.signature,
    });
  }
  if (m.content !== "")
    items.push({ role: "assistant", content: [{ type: "output_text", text: m.content }] });
  for (const c of m.toolCalls ?? []) {
    items.push({
      type: "function_call",
      call_id: c.id,
      name: c.name,
      arguments: c.rawArguments ?? JSON.stringify(c.arguments),
    });
  }
  return items;
}

/** Sampling settings, less those a reasoning model refuses; what the Responses API has no field for is reported. */
function settings(model: string, params: GenerationParams, warn: Warn): Record<string, unknown> {
  const out: Record<string, unknown> = samplingSettings(model, params, warn);
  if (params.stop?.length) warn("stop sequences are not sent: the Responses API has none");
  if (params.seed !== undefined) warn("seed is not sent: the Responses API has none");
  if (params.maxTokens !== undefined) out.max_output_tokens = params.maxTokens;
  if (params.reasoningEffort !== undefined) {
    out.reasoning = { effort: params.reasoningEffort, summary: "auto" };
    // Without a stored response, the encrypted reasoning is what lets the next request continue it.
    out.include = ["reasoning.encrypted_content"];
  }
  return out;
}

/**
 * The body of a streaming Responses API request (POST /responses). System messages become `instructions`;
 * the rest become input items: messages, function calls and their outputs. Nothing is stored server-side,
 * so the whole history goes every time, and reasoning goes back as its encrypted payload — only to the
 * provider and model that produced it. Settings the API would refuse or has no field for are left out and
 * reported through `warn`.
 */
export function responsesRequestBody(
  model: string,
  messages: readonly Message[],
  tools: readonly Tool[],
  params: GenerationParams,
  options: ResponsesBodyOptions,
  warn: Warn = () => {},
): Record<string, unknown> {
  const history = replayHistory(messages, {
    whitespaceIsEmpty: false,
    keepReasoning: (r) => r.signature !== undefined && signedHere(r.origin, options.provider, model),
  });
  const instructions: string[] = [];
  const input: Item[] = [];
  for (const m of history) {
    switch (m.role) {
      case "system":
        instructions.push(m.content);
        break;
      case "user":
        input.push({ role: "user", content: [{ type: "input_text", text: m.content }] });
        break;
      case "assistant":
        input.push(...assistantItems(m));
        break;
      case "tool":
        input.push({ type: "function_call_output", call_id: m.toolCallId, output: m.content });
        break;
    }
  }
  const body: Record<string, unknown> = { model, stream: true, store: false };
  if (instructions.length > 0) body.instructions = instructions.join("\n\n");
  body.input = input;
  if (tools.length > 0) {
    // Function tools are strict by default here, and strict mode refuses most hand-written schemas.
    body.tools = tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    }));
  }
  return { ...body, ...settings(model, params, warn), ...params.extra };
}
