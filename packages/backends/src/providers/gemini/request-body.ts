import type { GenerationParams, Message, Tool } from "../../types.js";

/** Ids this package made up for calls Gemini sent without one; they are not sent back. */
export const GENERATED_ID_PREFIX = "gemini-";

type Part = Record<string, unknown>;

function assistantParts(m: Extract<Message, { role: "assistant" }>): Part[] {
  const parts: Part[] = [];
  if (m.content !== "") parts.push({ text: m.content });
  for (const c of m.toolCalls ?? []) {
    parts.push({
      functionCall: {
        ...(!c.id.startsWith(GENERATED_ID_PREFIX) && { id: c.id }),
        name: c.name,
        args: c.arguments,
      },
      ...(c.signature !== undefined && { thoughtSignature: c.signature }),
    });
  }
  return parts;
}

/**
 * The body of a streamGenerateContent request: `systemInstruction`, `contents` with roles user and model
 * (function responses ride in a user turn), JSON-Schema tool declarations, and `generationConfig`. Thought
 * signatures go back on the parts they came on.
 */
export function geminiRequestBody(
  messages: readonly Message[],
  tools: readonly Tool[],
  params: GenerationParams,
): Record<string, unknown> {
  const system: Part[] = [];
  const contents: Array<{ role: "user" | "model"; parts: Part[] }> = [];
  const add = (role: "user" | "model", parts: Part[]) => {
    const last = contents.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
        system.push({ text: m.content });
        break;
      case "user":
        add("user", [{ text: m.content }]);
        break;
      case "assistant":
        add("model", assistantParts(m));
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
