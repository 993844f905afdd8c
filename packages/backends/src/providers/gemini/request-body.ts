import { replayHistory, signedHere } from "../../request/replay-history.js";
import type { AssistantMessage, GenerationParams, Message, Tool, ToolCall } from "../../types.js";

/** Ids this package made up for calls Gemini sent without one; they are not sent back. */
export const GENERATED_ID_PREFIX = "gemini-";

/**
 * The value Gemini's documentation gives for a call it did not sign (one made by another model or
 * provider), where Gemini 3 insists on a signature.
 */
const UNSIGNED_CALL = "skip_thought_signature_validator";

type Part = Record<string, unknown>;

/** Gemini 3 and later check the signature of the first call of each step of the current turn. */
const checksSignatures = (model: string) => /^gemini-([3-9]|\d\d)/.test(model);

function signatureOf(call: ToolCall, model: string, needed: boolean): string | undefined {
  if (call.signature !== undefined && signedHere(call.origin, "gemini", model)) return call.signature;
  return needed && checksSignatures(model) ? UNSIGNED_CALL : undefined;
}

/**
 * A reply's parts: its signed thoughts, its text (carrying the signature Gemini put on a text part), its
 * calls. Signatures go back only to the model that made them; the first call of a step in the current turn
 * gets the documented stand-in when its own signature cannot go back.
 */
function assistantParts(m: AssistantMessage, model: string, currentTurn: boolean): Part[] {
  const parts: Part[] = [];
  let textSignature: string | undefined;
  for (const r of m.reasoning ?? []) {
    if (r.text !== "") parts.push({ text: r.text, thought: true, thoughtSignature: r.signature });
    else textSignature ??= r.signature;
  }
  if (m.content !== "")
    parts.push({ text: m.content, ...(textSignature !== undefined && { thoughtSignature: textSignature }) });
  for (const [i, c] of (m.toolCalls ?? []).entries()) {
    const signature = signatureOf(c, model, currentTurn && i === 0);
    parts.push({
      functionCall: {
        ...(!c.id.startsWith(GENERATED_ID_PREFIX) && { id: c.id }),
        name: c.name,
        args: c.arguments,
      },
      ...(signature !== undefined && { thoughtSignature: signature }),
    });
  }
  return parts;
}

function generationConfig(params: GenerationParams): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (params.temperature !== undefined) config.temperature = params.temperature;
  if (params.topP !== undefined) config.topP = params.topP;
  if (params.maxTokens !== undefined) config.maxOutputTokens = params.maxTokens;
  if (params.stop?.length) config.stopSequences = params.stop;
  if (params.seed !== undefined) config.seed = params.seed;
  if (params.reasoningBudget !== undefined) {
    config.thinkingConfig = {
      thinkingBudget: params.reasoningBudget,
      includeThoughts: params.reasoningBudget !== 0,
    };
  }
  return config;
}

/**
 * The body of a streamGenerateContent request: `systemInstruction`, `contents` with roles user and model
 * (function responses ride in a user turn), JSON-Schema tool declarations, and `generationConfig`. Replies
 * that say nothing are left out (Gemini refuses a turn without parts); thought signatures go back on the
 * parts they came on, to the model that made them.
 */
export function geminiRequestBody(
  model: string,
  messages: readonly Message[],
  tools: readonly Tool[],
  params: GenerationParams,
): Record<string, unknown> {
  const history = replayHistory(messages, {
    whitespaceIsEmpty: false,
    keepReasoning: (r) => r.signature !== undefined && signedHere(r.origin, "gemini", model),
  });
  const turnStart = history.findLastIndex((m) => m.role === "user");
  const system: Part[] = [];
  const contents: Array<{ role: "user" | "model"; parts: Part[] }> = [];
  const add = (role: "user" | "model", parts: Part[]) => {
    const last = contents.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const [i, m] of history.entries()) {
    switch (m.role) {
      case "system":
        system.push({ text: m.content });
        break;
      case "user":
        add("user", [{ text: m.content }]);
        break;
      case "assistant":
        add("model", assistantParts(m, model, i > turnStart));
        break;
      case "tool":
        add("user", [
          {
            functionResponse: {
              ...(!m.toolCallId.startsWith(GENERATED_ID_PREFIX) && { id: m.toolCallId }),
              name: m.name,
              response: m.isError ? { error: m.content } : { output: m.content },
            },
          },
        ]);
        break;
    }
  }
  const config = generationConfig(params);
  const body: Record<string, unknown> = {};
  if (system.length > 0) body.systemInstruction = { parts: system };
  body.contents = contents;
  if (tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: tools.map((t) => ({
          name: t.name,
          description: t.description,
          parametersJsonSchema: t.parameters,
        })),
      },
    ];
  }
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return { ...body, ...params.extra };
}
