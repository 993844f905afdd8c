import { openToolLoop, replayHistory, signedHere } from "../../request/replay-history.js";
import type { Warn } from "../../request/warn.js";
import type { GenerationParams, Message, Tool } from "../../types.js";

export interface AnthropicBodyOptions {
  /** max_tokens when the params give none (Anthropic requires one; default 8192). */
  defaultMaxTokens?: number;
  /** Mark the system prompt, the tools and the latest user turn for prompt caching (default true). */
  promptCaching?: boolean;
}

/** Anthropic's smallest thinking budget. */
const MIN_BUDGET = 1024;
/** The lowest top_p Anthropic accepts with thinking on. */
const MIN_TOP_P_THINKING = 0.95;

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
    // Only signed blocks are kept for replay: one without redacted data has its signature.
    else blocks.push({ type: "thinking", thinking: r.text, signature: r.signature });
  }
  if (m.content !== "") blocks.push({ type: "text", text: m.content });
  for (const c of m.toolCalls ?? [])
    blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments });
  return blocks;
}

/**
 * The thinking budget to send, or undefined for none. Anthropic wants the reply that made the calls a
 * request answers to start with its thinking when thinking is on; when that thinking cannot go back (it
 * was made by another model or provider, or not at all), thinking is off for this request.
 */
function thinkingBudget(
  history: readonly Message[],
  params: GenerationParams,
  warn: Warn,
): number | undefined {
  const asked = params.reasoningBudget;
  if (asked === undefined || asked <= 0) return undefined;
  const loop = openToolLoop(history);
  if (loop !== undefined && !loop.reasoning?.length) {
    warn(
      "thinking is off for a request that answers tool calls made without thinking this model can read back (by another model or provider)",
    );
    return undefined;
  }
  if (asked < MIN_BUDGET) {
    warn(`the thinking budget ${asked} is raised to ${MIN_BUDGET}, Anthropic's smallest`);
    return MIN_BUDGET;
  }
  return asked;
}

/** Sampling settings, less those Anthropic refuses with thinking on (temperature other than 1, low top_p). */
function sampling(params: GenerationParams, thinking: boolean, warn: Warn): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { temperature, topP } = params;
  if (temperature !== undefined) {
    if (thinking && temperature !== 1)
      warn(`temperature ${temperature} is not sent: Anthropic allows only 1 with thinking on`);
    else out.temperature = temperature;
  }
  if (topP !== undefined) {
    if (thinking && topP < MIN_TOP_P_THINKING)
      warn(`top_p ${topP} is not sent: Anthropic allows only ${MIN_TOP_P_THINKING} to 1 with thinking on`);
    else out.top_p = topP;
  }
  return out;
}

/**
 * The body of a streaming messages request. System messages become the top-level `system` blocks; tool
 * results go, together, in the next user turn; turns of the same role are merged so roles alternate.
 * Replies that say nothing and whitespace-only text are left out; thinking blocks go back unmodified with
 * their signatures, but only to the model that signed them. Settings Anthropic would refuse are left out
 * and reported through `warn`.
 */
export function anthropicRequestBody(
  model: string,
  messages: readonly Message[],
  tools: readonly Tool[],
  params: GenerationParams,
  options: AnthropicBodyOptions = {},
  warn: Warn = () => {},
): Record<string, unknown> {
  const caching = options.promptCaching ?? true;
  const history = replayHistory(messages, {
    whitespaceIsEmpty: true,
    keepReasoning: (r) =>
      (r.signature !== undefined || r.redacted !== undefined) && signedHere(r.origin, "anthropic", model),
  });
  const system: Block[] = [];
  const turns: WireMessage[] = [];
  const add = (role: WireMessage["role"], content: Block[]) => {
    const last = turns.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else turns.push({ role, content });
  };
  for (const m of history) {
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
  const budget = thinkingBudget(history, params, warn);
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
  Object.assign(body, sampling(params, budget !== undefined, warn));
  if (params.stop?.length) body.stop_sequences = params.stop;
  return { ...body, ...params.extra };
}
