import { json, type MockReply, type Rendered, sse } from "../mock-reply.js";
import type { SignatureRegistry } from "../signature-registry.js";
import { renderOpenAi } from "../wire/openai.js";

/** How Copilot's chat-completions stream departs from OpenAI's, beyond what it always does. */
export interface CompletionQuirks {
  /** Tool-call deltas in `choices[].index: 1` while the text stays in index 0. */
  splitChoices: boolean;
  /** Tool-call deltas without their `index` (clients fall back to position or id). */
  omitToolCallIndex: boolean;
}

type Json = Record<string, unknown>;
interface Choice {
  index: number;
  delta: Json;
  finish_reason?: string;
  content_filter_results?: Json;
}
interface Chunk {
  choices: Choice[];
  created: number;
  id: string;
  model: string;
  usage?: Json;
}

const SAFE = { filtered: false, severity: "safe" };
const FILTERS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };

/** The first event: no id, no choices, only the verdict of the prompt filter. */
const PROMPT_FILTER_CHUNK = {
  choices: [],
  created: 0,
  id: "",
  prompt_filter_results: [{ content_filter_results: FILTERS, prompt_index: 0 }],
};

/** A rendered OpenAI frame: its JSON payload, or the frame as it is (`[DONE]`, keep-alive comments). */
type Frame = { data: Json } | { raw: string };

function parseFrames(rendered: Rendered): Frame[] {
  return rendered.frames.map((frame) => {
    const s = String(frame);
    // Not `.`, which stops at U+2028, a character JSON.stringify leaves unescaped.
    const payload = /^data: ([^\n]*)/.exec(s)?.[1]?.trimEnd();
    return payload?.startsWith("{") ? { data: JSON.parse(payload) as Json } : { raw: s };
  });
}

/** OpenAI's chunk as Copilot sends it: no `object`/`logprobs`, a null finish left out, filter verdicts in. */
function copilotChunk(chunk: Json, quirks: CompletionQuirks, splitFinish: boolean): Chunk {
  const choices: Choice[] = [];
  for (const c of chunk.choices as Json[]) {
    const { reasoning_content, ...delta } = c.delta as Json;
    if (reasoning_content !== undefined) delta.reasoning_text = reasoning_content;
    const calls = delta.tool_calls as Json[] | undefined;
    if (calls && quirks.omitToolCallIndex) delta.tool_calls = calls.map(({ index: _, ...call }) => call);
    const index = calls && quirks.splitChoices ? 1 : 0;
    const hasText = typeof delta.content === "string" && delta.content !== "";
    const choice: Choice = { index, delta, content_filter_results: hasText ? FILTERS : {} };
    if (typeof c.finish_reason === "string") choice.finish_reason = c.finish_reason;
    // Both choices end, so that a client keeping one state per index closes the tool-call choice too.
    if (choice.finish_reason && splitFinish) choices.push(choice, { ...choice, index: 1 });
    else choices.push(choice);
  }
  return { choices, created: chunk.created as number, id: chunk.id as string, model: chunk.model as string };
}

/**
 * A scripted reply as Copilot streams chat completions: the OpenAI stream with a prompt-filter chunk first,
 * filter verdicts on every choice, usage on the finish chunk (no usage-only chunk), reasoning as
 * `reasoning_text` followed by a `reasoning_opaque` signature, a mid-stream failure as a chunk with no
 * choices and only an `error`, and the optional quirks.
 */
export function renderCopilotCompletions(
  reply: MockReply,
  model: string,
  quirks: CompletionQuirks,
  signatures: SignatureRegistry,
): { rendered: Rendered; chunks: Chunk[] } {
  const frames = parseFrames(renderOpenAi(reply, model));
  const usage = frames.flatMap((f) =>
    "data" in f && (f.data.choices as unknown[] | undefined)?.length === 0 ? [f.data.usage as Json] : [],
  )[0];
  const splitFinish = quirks.splitChoices && (reply.toolCalls?.length ?? 0) > 0;
  let opaque =
    reply.reasoning === undefined ? undefined : signatures.issue("copilot", model, reply.reasoningSignature);
  const out = [sse(PROMPT_FILTER_CHUNK, reply)];
  const chunks: Chunk[] = [];
  const emit = (chunk: Chunk) => {
    chunks.push(chunk);
    out.push(sse(chunk, reply));
  };
  let reasoned = false;
  for (const frame of frames) {
    if ("raw" in frame) {
      out.push(frame.raw);
      continue;
    }
    const data = frame.data;
    if (isError(data)) {
      out.push(sse({ error: { message: data.error.message } }, reply));
      continue;
    }
    if ((data.choices as Json[]).length === 0) continue;
    const chunk = copilotChunk(data, quirks, splitFinish);
    const reasoning = "reasoning_text" in (chunk.choices[0]?.delta ?? {});
    // The signature closes the reasoning, before the first chunk of anything else.
    if (reasoned && !reasoning && opaque !== undefined) {
      emit({ ...chunk, choices: [{ index: 0, delta: { reasoning_opaque: opaque } }] });
      opaque = undefined;
    }
    reasoned ||= reasoning;
    if (chunk.choices.some((c) => c.finish_reason) && usage) chunk.usage = usage;
    emit(chunk);
  }
  return { rendered: { status: 200, headers: { "content-type": "text/event-stream" }, frames: out }, chunks };
}

function isError(data: Json): data is Json & { error: { message: string } } {
  return typeof data.error === "object" && data.error !== null && !("choices" in data);
}

/** The chunks of a stream folded into the `chat.completion` object a `stream: false` request gets. */
export function completionObject(chunks: Chunk[], model: string): Rendered {
  const choices = new Map<number, { message: Json; finish_reason: string | null }>();
  for (const chunk of chunks) {
    for (const c of chunk.choices) {
      const choice = choices.get(c.index) ?? {
        message: { role: "assistant", content: null },
        finish_reason: null,
      };
      choices.set(c.index, choice);
      const m = choice.message;
      const d = c.delta;
      if (typeof d.content === "string" && d.content !== "") m.content = `${m.content ?? ""}${d.content}`;
      if (typeof d.reasoning_text === "string")
        m.reasoning_text = `${m.reasoning_text ?? ""}${d.reasoning_text}`;
      if (typeof d.reasoning_opaque === "string") m.reasoning_opaque = d.reasoning_opaque;
      for (const call of (d.tool_calls as Json[] | undefined) ?? []) {
        m.tool_calls ??= [];
        const calls = m.tool_calls as Json[];
        const fn = call.function as { name?: string; arguments: string };
        if (call.id)
          calls.push({ id: call.id, type: "function", function: { name: fn.name, arguments: "" } });
        const open = calls.at(-1)?.function as { arguments: string } | undefined;
        if (open) open.arguments += fn.arguments;
      }
      if (c.finish_reason) choice.finish_reason = c.finish_reason;
    }
  }
  const last = chunks.at(-1);
  return json(200, {
    id: last?.id ?? "chatcmpl-mock",
    object: "chat.completion",
    created: last?.created ?? 0,
    model,
    choices: [...choices].map(([index, c]) => ({ index, ...c, content_filter_results: FILTERS })),
    usage: chunks.find((c) => c.usage)?.usage,
    prompt_filter_results: PROMPT_FILTER_CHUNK.prompt_filter_results,
  });
}
