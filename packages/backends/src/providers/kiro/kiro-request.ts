import { createHash, randomUUID } from "node:crypto";
import { replayHistory } from "../../request/replay-history.js";
import type { Warn } from "../../request/warn.js";
import type { AssistantMessage, GenerationParams, Message, Tool } from "../../types.js";

export interface KiroBodyOptions {
  /** The social login's profile ARN; Builder ID / IdC requests go without one. */
  profileArn?: string;
}

/** A request body, and the tool names it had to shorten (as sent → as given) for reading the reply. */
export interface KiroRequest {
  body: Record<string, unknown>;
  toolNames: Map<string, string>;
}

interface ToolResult {
  toolUseId: string;
  content: Array<{ text: string }>;
  status: "success" | "error";
}
interface ToolUse {
  toolUseId: string;
  name: string;
  input: Record<string, unknown>;
}
type Turn =
  | { role: "user"; texts: string[]; toolResults: ToolResult[] }
  | { role: "assistant"; texts: string[]; toolUses: ToolUse[] };

/** Limits Kiro refuses a whole request over (B.4.3). */
const MAX_TOOL_NAME = 64;
const MAX_TOOL_DESCRIPTION = 10_000;
/** The text of a user turn that only carries tool results: Kiro wants content in every message. */
const RESULTS_ONLY = "Tool results provided.";
/** A user turn made up to keep turns alternating where the conversation has none. */
const CONTINUE = "Continue.";
/**
 * The content of a reply that only made calls. Kiro wants content in every message; kiro.rs, which is in
 * use against it, sends one space.
 */
const CALLS_ONLY = " ";
/** Thinking lengths for an effort without a budget (Anthropic-style budgets, which Kiro's models are). */
const EFFORT_BUDGET = { minimal: 1024, low: 4096, medium: 16_384, high: 32_768 } as const;
/** Settings the Kiro-style body has no field for. */
const UNSENT: Array<[keyof GenerationParams, string]> = [
  ["temperature", "temperature"],
  ["topP", "top_p"],
  ["maxTokens", "max_tokens"],
  ["stop", "stop sequences"],
  ["seed", "seed"],
];

/**
 * Tool names as Kiro gets them: those over its limit are cut, with a hash of the whole name so that names
 * cut to the same prefix stay apart and the same name is always sent the same way.
 */
class ToolNames {
  readonly sent = new Map<string, string>();
  constructor(private readonly warn: Warn) {}

  wire(name: string): string {
    if (name.length <= MAX_TOOL_NAME) return name;
    const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
    const short = `${name.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
    if (!this.sent.has(short)) {
      this.sent.set(short, name);
      this.warn(
        `tool ${name} is sent to Kiro as ${short}: its names may be ${MAX_TOOL_NAME} characters at most`,
      );
    }
    return short;
  }
}

function thinkingPrefix(params: GenerationParams): string | undefined {
  const budget =
    params.reasoningBudget !== undefined && params.reasoningBudget > 0
      ? params.reasoningBudget
      : params.reasoningEffort && EFFORT_BUDGET[params.reasoningEffort];
  if (!budget) return undefined;
  return `<thinking_mode>enabled</thinking_mode><max_thinking_length>${budget}</max_thinking_length>`;
}

/** A reply's text, with its reasoning before it in the tags Kiro's models write their thinking in. */
function assistantText(m: AssistantMessage): string {
  const thinking = (m.reasoning ?? []).map((r) => `<thinking>${r.text}</thinking>`).join("\n\n");
  return [thinking, m.content].filter((t) => t !== "").join("\n\n");
}

/** The conversation as alternating turns, starting and ending with the user's. */
function turnsOf(history: readonly Message[], names: ToolNames): { system: string[]; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const user = () => {
    const last = turns.at(-1);
    if (last?.role === "user") return last;
    const turn: Turn = { role: "user", texts: [], toolResults: [] };
    turns.push(turn);
    return turn;
  };
  for (const m of history) {
    switch (m.role) {
      case "system":
        system.push(m.content);
        break;
      case "user":
        user().texts.push(m.content);
        break;
      case "tool":
        user().toolResults.push({
          toolUseId: m.toolCallId,
          content: [{ text: m.content }],
          status: m.isError ? "error" : "success",
        });
        break;
      case "assistant": {
        let last = turns.at(-1);
        if (last?.role !== "assistant") {
          last = { role: "assistant", texts: [], toolUses: [] };
          turns.push(last);
        }
        const text = assistantText(m);
        if (text !== "") last.texts.push(text);
        for (const c of m.toolCalls ?? [])
          last.toolUses.push({ toolUseId: c.id, name: names.wire(c.name), input: c.arguments });
        break;
      }
    }
  }
  if (turns[0]?.role !== "user") turns.unshift({ role: "user", texts: [], toolResults: [] });
  // A conversation that ends with a reply is asked to go on from it: Kiro answers only a user's message.
  if (turns.at(-1)!.role === "assistant") user().texts.push(CONTINUE);
  return { system, turns };
}

function userMessage(
  turn: Extract<Turn, { role: "user" }>,
  modelId: string,
  prefix: string,
  context: Record<string, unknown> = {},
) {
  const text = [prefix, ...turn.texts].filter((t) => t !== "").join("\n\n");
  const content = text !== "" ? text : turn.toolResults.length > 0 ? RESULTS_ONLY : CONTINUE;
  if (turn.toolResults.length > 0) context.toolResults = turn.toolResults;
  return {
    content,
    modelId,
    origin: "AI_EDITOR",
    ...(Object.keys(context).length > 0 && { userInputMessageContext: context }),
  };
}

/** The tool definitions: the given ones, and a stand-in for each name the history uses that is not given. */
function toolSpecs(tools: readonly Tool[], turns: readonly Turn[], names: ToolNames, warn: Warn) {
  const specs = tools.map((t) => {
    let description = t.description;
    if (description.length > MAX_TOOL_DESCRIPTION) {
      warn(
        `the description of tool ${t.name} is cut to ${MAX_TOOL_DESCRIPTION} characters, Kiro's limit (it has ${description.length})`,
      );
      description = description.slice(0, MAX_TOOL_DESCRIPTION);
    }
    return {
      toolSpecification: { name: names.wire(t.name), description, inputSchema: { json: t.parameters } },
    };
  });
  // Kiro refuses a history that calls a tool it is not told of; it compares names without case.
  const known = new Set(specs.map((s) => s.toolSpecification.name.toLowerCase()));
  for (const turn of turns) {
    if (turn.role !== "assistant") continue;
    for (const use of turn.toolUses) {
      if (known.has(use.name.toLowerCase())) continue;
      known.add(use.name.toLowerCase());
      specs.push({
        toolSpecification: {
          name: use.name,
          description: "Tool",
          inputSchema: { json: { type: "object", properties: {} } },
        },
      });
    }
  }
  return specs;
}

/**
 * The body of a `generateAssistantResponse` request (B.4.2, B.4.3). Kiro has no system role: the system
 * prompt (after the thinking switch, when reasoning is asked for) opens the first user message. Turns
 * alternate and start with the user's, the last being `currentMessage`; tool results go with the user
 * turn after the calls, every call answered and no result left without its call (as replayHistory makes
 * them); reasoning goes back as `<thinking>` text; tools are defined in `currentMessage` only. Settings the
 * body has no field for are reported through `warn`.
 */
export function kiroRequestBody(
  model: string,
  messages: readonly Message[],
  tools: readonly Tool[],
  params: GenerationParams,
  options: KiroBodyOptions = {},
  warn: Warn = () => {},
): KiroRequest {
  const names = new ToolNames(warn);
  const history = replayHistory(messages, {
    whitespaceIsEmpty: true,
    keepReasoning: (r) => r.redacted === undefined && r.text.trim() !== "",
  });
  const { system, turns } = turnsOf(history, names);
  const prefix = [thinkingPrefix(params), ...system].filter((t) => t !== undefined && t !== "").join("\n\n");
  const wire = turns.slice(0, -1).map((turn, i) =>
    turn.role === "user"
      ? { userInputMessage: userMessage(turn, model, i === 0 ? prefix : "") }
      : {
          assistantResponseMessage: {
            content: turn.texts.length > 0 ? turn.texts.join("\n\n") : CALLS_ONLY,
            ...(turn.toolUses.length > 0 && { toolUses: turn.toolUses }),
          },
        },
  );
  const specs = toolSpecs(tools, turns, names, warn);
  const current = turns.at(-1) as Extract<Turn, { role: "user" }>;
  const currentMessage = userMessage(current, model, turns.length === 1 ? prefix : "", {
    ...(specs.length > 0 && { tools: specs }),
  });
  for (const [key, label] of UNSENT) {
    const value = params[key];
    if (value !== undefined && !(Array.isArray(value) && value.length === 0))
      warn(`${label} is not sent: Kiro's API has no such setting`);
  }
  const body = {
    conversationState: {
      conversationId: randomUUID(),
      agentContinuationId: randomUUID(),
      agentTaskType: "vibe",
      chatTriggerType: "MANUAL",
      ...(wire.length > 0 && { history: wire }),
      currentMessage: { userInputMessage: currentMessage },
    },
    ...(options.profileArn !== undefined && { profileArn: options.profileArn }),
    ...params.extra,
  };
  return { body, toolNames: names.sent };
}
