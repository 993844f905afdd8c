import { isObject, type JsonObject, jsonKind } from "../rules/request-check.js";

/**
 * Model ids Kiro accepts in `modelId` (B.4.4): the dotted public ids ListAvailableModels reports, and the
 * older upper-case internal ids gateways still send. Both styles are reported working.
 */
export const KIRO_MODEL_IDS: readonly string[] = [
  "auto",
  "claude-sonnet-4",
  "claude-sonnet-4.5",
  "claude-sonnet-4.6",
  "claude-haiku-4.5",
  "claude-opus-4.5",
  "claude-opus-4.6",
  "CLAUDE_SONNET_4_20250514_V1_0",
  "CLAUDE_3_7_SONNET_20250219_V1_0",
  "CLAUDE_3_5_HAIKU_20241022_V1_0",
  "CLAUDE_SONNET_4_5_20250929_V1_0",
  "CLAUDE_SONNET_4_5_20250929_LONG_V1_0",
  "CLAUDE_HAIKU_4_5_20251001_V1_0",
  "CLAUDE_OPUS_4_5_20251101_V1_0",
  "CLAUDE_OPUS_4_6_20251201_V1_0",
];

export const MAX_TOOL_NAME = 64;
export const MAX_TOOL_DESCRIPTION = 10_000;

const IMAGE_FORMATS = new Set(["png", "jpeg", "gif", "webp"]);

interface Turn {
  role: "user" | "assistant";
  message: JsonObject;
  where: string;
}

/**
 * Checks a `generateAssistantResponse` body against the rules of B.4.3 (all of which Kiro answers with the
 * same bare "Improperly formed request."): undefined when it is well formed, else which rule it broke, for
 * `RecordedRequest.rejected`.
 */
export function checkKiroBody(body: JsonObject, knownModels: ReadonlySet<string>): string | undefined {
  const state = body.conversationState;
  if (!isObject(state)) return "conversationState must be an object";
  if (typeof state.conversationId !== "string") return "conversationState.conversationId must be a string";
  if (state.chatTriggerType !== "MANUAL")
    return `chatTriggerType must be MANUAL, not ${JSON.stringify(state.chatTriggerType)}`;
  const current = isObject(state.currentMessage) ? state.currentMessage.userInputMessage : undefined;
  if (!isObject(current)) return "currentMessage.userInputMessage must be an object";
  const history = state.history ?? [];
  if (!Array.isArray(history)) return "history must be an array";

  const turns: Turn[] = [];
  for (const [i, entry] of history.entries()) {
    const where = `history[${i}]`;
    const user = isObject(entry) ? entry.userInputMessage : undefined;
    const assistant = isObject(entry) ? entry.assistantResponseMessage : undefined;
    if (isObject(user) === isObject(assistant))
      return `${where} must hold exactly one of userInputMessage and assistantResponseMessage`;
    turns.push(
      isObject(user)
        ? { role: "user", message: user, where }
        : { role: "assistant", message: assistant as JsonObject, where },
    );
  }
  turns.push({ role: "user", message: current, where: "currentMessage" });

  if (turns[0]!.role !== "user") return "history must start with a userInputMessage";
  for (let i = 1; i < turns.length; i++)
    if (turns[i]!.role === turns[i - 1]!.role)
      return `${turns[i - 1]!.where} and ${turns[i]!.where} are both ${turns[i]!.role} messages: history must alternate`;

  for (const turn of turns) {
    const broken =
      turn.role === "user"
        ? checkUser(turn.message, turn.where, turn.where === "currentMessage", knownModels)
        : checkAssistant(turn.message, turn.where);
    if (broken) return broken;
  }
  return checkPairing(turns) ?? checkTools(current, turns);
}

function checkUser(
  message: JsonObject,
  where: string,
  required: boolean,
  knownModels: ReadonlySet<string>,
): string | undefined {
  if (typeof message.content !== "string")
    return `${where}.content must be a string, not ${jsonKind(message.content)}`;
  // History turns may leave modelId and origin out; the current message must carry both.
  if ((required || message.modelId !== undefined) && !knownModels.has(message.modelId as string))
    return `${where}.modelId ${JSON.stringify(message.modelId)} is not a known Kiro model`;
  if ((required || message.origin !== undefined) && message.origin !== "AI_EDITOR")
    return `${where}.origin must be AI_EDITOR, not ${JSON.stringify(message.origin)}`;
  if (message.images !== undefined) {
    if (!Array.isArray(message.images)) return `${where}.images must be an array`;
    for (const image of message.images)
      if (
        !isObject(image) ||
        !IMAGE_FORMATS.has(image.format as string) ||
        !isObject(image.source) ||
        typeof image.source.bytes !== "string"
      )
        return `${where}.images must be {format: png|jpeg|gif|webp, source: {bytes}}`;
  }
  const context = message.userInputMessageContext;
  if (context === undefined) return undefined;
  if (!isObject(context)) return `${where}.userInputMessageContext must be an object`;
  if (context.toolResults === undefined) return undefined;
  if (!Array.isArray(context.toolResults)) return `${where}.toolResults must be an array`;
  for (const result of context.toolResults) {
    if (!isObject(result) || typeof result.toolUseId !== "string")
      return `${where}.toolResults[] must have a string toolUseId`;
    if (result.status !== "success" && result.status !== "error")
      return `${where}.toolResults[] status must be success or error`;
    if (
      !Array.isArray(result.content) ||
      !result.content.every((c) => isObject(c) && (typeof c.text === "string" || "json" in c))
    )
      return `${where}.toolResults[] content must be an array of {text} or {json}`;
  }
  return undefined;
}

function checkAssistant(message: JsonObject, where: string): string | undefined {
  if (typeof message.content !== "string")
    return `${where}.content must be a string, not ${jsonKind(message.content)}`;
  if (message.toolUses === undefined) return undefined;
  if (!Array.isArray(message.toolUses)) return `${where}.toolUses must be an array`;
  for (const use of message.toolUses) {
    if (!isObject(use) || typeof use.toolUseId !== "string" || use.toolUseId === "")
      return `${where}.toolUses[] must have a toolUseId`;
    if (typeof use.name !== "string" || use.name === "") return `${where}.toolUses[] must have a name`;
    if (!isObject(use.input))
      return `${where}.toolUses[${use.toolUseId}].input must be a JSON object, not ${jsonKind(use.input)}`;
  }
  return undefined;
}

const toolUsesOf = (turn: Turn): JsonObject[] =>
  turn.role === "assistant" && Array.isArray(turn.message.toolUses) ? turn.message.toolUses : [];

const toolResultsOf = (turn: Turn): JsonObject[] => {
  const context = turn.message.userInputMessageContext;
  return turn.role === "user" && isObject(context) && Array.isArray(context.toolResults)
    ? context.toolResults
    : [];
};

// Each user turn answers exactly the tool uses of the assistant turn before it: no orphan, none missing.
function checkPairing(turns: Turn[]): string | undefined {
  const seen = new Set<string>();
  for (const turn of turns)
    for (const use of toolUsesOf(turn)) {
      const id = use.toolUseId as string;
      if (seen.has(id)) return `toolUseId ${id} is used by two tool uses (${turn.where})`;
      seen.add(id);
    }
  for (const [i, turn] of turns.entries()) {
    if (turn.role !== "user") continue;
    const asked = new Set(i > 0 ? toolUsesOf(turns[i - 1]!).map((u) => u.toolUseId as string) : []);
    const answered = new Set<string>();
    for (const result of toolResultsOf(turn)) {
      const id = result.toolUseId as string;
      if (answered.has(id)) return `${turn.where} has two toolResults for ${id}`;
      if (!asked.has(id))
        return `${turn.where} has a toolResult for ${id}, which the turn before did not use`;
      answered.add(id);
    }
    for (const id of asked)
      if (!answered.has(id)) return `${turn.where} has no toolResult for tool use ${id}`;
  }
  return undefined;
}

function checkTools(current: JsonObject, turns: Turn[]): string | undefined {
  const context = current.userInputMessageContext;
  const tools = isObject(context) ? (context.tools ?? []) : [];
  if (!Array.isArray(tools)) return "currentMessage tools must be an array";
  const names = new Set<string>();
  for (const tool of tools) {
    const spec = isObject(tool) ? tool.toolSpecification : undefined;
    if (!isObject(spec)) return "tools[] must be {toolSpecification: {name, description, inputSchema}}";
    if (typeof spec.name !== "string" || spec.name === "") return "tools[] must have a name";
    if (spec.name.length > MAX_TOOL_NAME)
      return `tool name ${spec.name} is longer than ${MAX_TOOL_NAME} characters`;
    if (typeof spec.description !== "string") return `tool ${spec.name} must have a string description`;
    if (spec.description.length > MAX_TOOL_DESCRIPTION)
      return `tool ${spec.name} has a description longer than ${MAX_TOOL_DESCRIPTION} characters`;
    if (!isObject(spec.inputSchema) || !isObject(spec.inputSchema.json))
      return `tool ${spec.name} must have inputSchema.json, an object`;
    names.add(spec.name.toLowerCase());
  }
  // Kiro matches history tool names against the current tools case-insensitively (kiro.rs).
  for (const turn of turns)
    for (const use of toolUsesOf(turn))
      if (!names.has((use.name as string).toLowerCase()))
        return `${turn.where} uses tool ${use.name as string}, which currentMessage does not define`;
  return undefined;
}
