import type { GenerationParams, Message, Tool } from "../../types.js";

export interface AnthropicBodyOptions {
  /** max_tokens when the params give none (Anthropic requires one; default 8192). */
  defaultMaxTokens?: number;
  /** Mark the system prompt, the tools and the latest user turn for prompt caching (default true). */
  promptCaching?: boolean;
}

type Block = Record<string, unknown>;
interface WireMessage {
  role: "user" | "assistant";
  content: Block[];
}

const EPHEMERAL = { type: "ephemeral" };

function assistantBlocks(m: Extract<Message, { role: "assistant" }>): Block[] {
  const blocks: Block[] = [];
  for (const r of m.reasoning ?? []) {
    if (r.redacted !== undefined) blocks.push({ type: "redacted_thinking", data: r.redacted });
    else if (r.signature !== undefined)
      blocks.push({ type: "thinking", thinking: r.text, signature: r.signature });
  }
  if (m.content !== "") blocks.push({ type: "text", text: m.content });
  for (const c of m.toolCalls ?? [])
    blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments });
  return blocks;
}

/**
 * The body of a streaming messages request. System messages become the top-level `system` blocks; tool
 * results go, together, in the next user turn; turns of the same role are merged so roles alternate; the
 * thinking blocks of earlier turns go back unmodified with their signatures.
 */
export function anthropicRequestBody(
  model: string,
  messages: readonly Message[],
  tools: readonly Tool[],
  params: GenerationParams,
  options: AnthropicBodyOptions = {},
): Record<string, unknown> {
  const caching = options.promptCaching ?? true;
  const system: Block[] = [];
  const turns: WireMessage[] = [];
  const add = (role: WireMessage["role"], content: Block[]) => {
    const last = turns.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
        system.push({ type: "text", text: m.content });
        break;
      case "user":
        add("user", [{ type: "text", text: m.content }]);
        break;
      case "assistant":
        add("assistant", assistantBlocks(m));
        break;
      case "tool":
        add("user", [
          {
            type: "tool_result",
            tool_use_id: m.toolCallId,
            content: m.content,
            ...(m.isError && { is_error: true }),
          },
        ]);
        break;
    }
  }
  if (caching) {
    const lastSystem = system.at(-1);
    if (lastSystem) lastSystem.cache_control = EPHEMERAL;
    const lastUser = [...turns]
      .reverse()
      .find((t) => t.role === "user")
      ?.content.at(-1);
    if (lastUser) lastUser.cache_control = EPHEMERAL;
  }
  const budget = params.reasoningBudget;
  let maxTokens = params.maxTokens ?? options.defaultMaxTokens ?? 8192;
  // The thinking budget counts against max_tokens and must stay below it.
  if (budget !== undefined && maxTokens <= budget) maxTokens = budget + 4096;
  const body: Record<string, unknown> = { model, max_tokens: maxTokens, stream: true };
  if (system.length > 0) body.system = system;
  body.messages = turns;
  if (tools.length > 0) {
    body.tools = tools.map((t, i) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
      ...(caching && i === tools.length - 1 && { cache_control: EPHEMERAL }),
    }));
  }
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget };
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.topP !== undefined) body.top_p = params.topP;
  if (params.stop?.length) body.stop_sequences = params.stop;
  return { ...body, ...params.extra };
}
