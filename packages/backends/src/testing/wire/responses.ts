import {
  argsText,
  json,
  type MockReply,
  pieces,
  type Rendered,
  retryAfterHeader,
  sse,
} from "../mock-reply.js";
import { SignatureRegistry } from "../signature-registry.js";
import { openAiErrorBody } from "./error-bodies.js";

type Json = Record<string, unknown>;

/** The reasons a Responses stream ends `incomplete`; every other stop completes it. */
const INCOMPLETE: Record<string, string> = {
  length: "max_output_tokens",
  content_filter: "content_filter",
};

const SERVER_ERROR =
  "An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists. Please include the request ID req_mock in your message.";

/** A message's content part: text, or a refusal, which streams in a part of its own kind. */
const contentPart = (value: string, refusal = false) =>
  refusal
    ? { type: "refusal", refusal: value }
    : { type: "output_text", annotations: [], logprobs: [], text: value };

function fault(reply: MockReply, model: string): Rendered | undefined {
  const f = reply.fault;
  switch (f?.type) {
    case "rate_limit":
      return json(
        429,
        openAiErrorBody(
          `Rate limit reached for ${model} in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2.4s.`,
          "tokens",
          null,
          "rate_limit_exceeded",
        ),
        retryAfterHeader(f),
      );
    case "server_error":
      return json(f.status, openAiErrorBody(SERVER_ERROR, "server_error", null, "server_error"));
    case "overloaded":
      return json(
        503,
        openAiErrorBody(
          "The engine is currently overloaded, please try again later.",
          "server_error",
          null,
          null,
        ),
      );
    case "context_overflow":
      return json(
        400,
        openAiErrorBody(
          "Your input exceeds the context window of this model. Please adjust your input and try again.",
          "invalid_request_error",
          "input",
          "context_length_exceeded",
        ),
      );
    case "tool_unsupported":
      return json(
        400,
        openAiErrorBody(
          "tools is not supported in this model. For a list of supported models, refer to https://platform.openai.com/docs/guides/function-calling#models-supporting-function-calling.",
          "invalid_request_error",
          null,
          null,
        ),
      );
    case "auth":
      return json(
        401,
        openAiErrorBody(
          "Incorrect API key provided: sk-mock. You can find your API key at https://platform.openai.com/account/api-keys.",
          "invalid_request_error",
          null,
          "invalid_api_key",
        ),
      );
    default:
      return undefined;
  }
}

/**
 * A reply as the Responses API streams it (POST /responses): typed events numbered by `sequence_number`,
 * one output item per reasoning, message and function call, each opened and closed, then a terminal
 * `response.completed` or `response.incomplete` carrying the usage; a stream error is `response.failed`
 * after partial text. The reasoning's encrypted_content is recorded in `signatures` for Copilot (the
 * mock that serves this API), so a later request may replay it to this model.
 */
export function renderResponses(
  reply: MockReply,
  model: string,
  signatures = new SignatureRegistry(),
): Rendered {
  const refused = fault(reply, model);
  if (refused) return refused;
  const size = reply.chunkSize ?? 4;
  const nl = reply.crlf ? "\r\n" : "\n";
  const frames: string[] = [];
  let sequence = 0;
  const push = (type: string, fields: Json) => {
    frames.push(sse({ type, sequence_number: sequence++, ...fields }, reply, type));
    if (reply.keepAlive) frames.push(`: keep-alive${nl}${nl}`);
  };
  const output: Json[] = [];
  const response = (status: string, fields: Json = {}) => ({
    id: "resp_mock",
    object: "response",
    created_at: 1_760_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output: [...output],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: "medium", summary: reply.reasoning === undefined ? null : "auto" },
    store: false,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage: null,
    user: null,
    metadata: {},
    ...fields,
  });
  /** Opens an output item, streams its body, and closes it with its final form. */
  const item = (opening: Json, body: (itemId: string, outputIndex: number) => void, closing: Json) => {
    const outputIndex = output.length;
    push("response.output_item.added", { output_index: outputIndex, item: opening });
    body(opening.id as string, outputIndex);
    push("response.output_item.done", { output_index: outputIndex, item: closing });
    output.push(closing);
  };
  const stop = reply.stopReason ?? (reply.toolCalls?.length ? "tool_use" : "stop");
  const incomplete = INCOMPLETE[stop];

  push("response.created", { response: response("in_progress") });
  push("response.in_progress", { response: response("in_progress") });
  if (reply.reasoning !== undefined) {
    const id = "rs_mock_0";
    const text = reply.reasoning;
    const summary = text === "" ? [] : [{ type: "summary_text", text }];
    const encrypted = signatures.issue("copilot", model, reply.reasoningSignature);
    item(
      { id, type: "reasoning", summary: [] },
      (itemId, outputIndex) => {
        if (text === "") return;
        const at = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
        push("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
        for (const p of pieces(text, size))
          push("response.reasoning_summary_text.delta", { ...at, delta: p });
        push("response.reasoning_summary_text.done", { ...at, text });
        push("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text } });
      },
      { id, type: "reasoning", encrypted_content: encrypted, summary },
    );
  }
  if (reply.fault?.type === "stream_error") {
    const outputIndex = output.length;
    const at = { item_id: "msg_mock_0", output_index: outputIndex, content_index: 0 };
    push("response.output_item.added", {
      output_index: outputIndex,
      item: { id: at.item_id, type: "message", status: "in_progress", content: [], role: "assistant" },
    });
    push("response.content_part.added", { ...at, part: contentPart("") });
    push("response.output_text.delta", { ...at, delta: reply.fault.afterText ?? "partial", logprobs: [] });
    push("response.failed", {
      response: response("failed", { error: { code: "server_error", message: SERVER_ERROR } }),
    });
    return { status: 200, headers: { "content-type": "text/event-stream" }, frames };
  }
  if (reply.text !== undefined) {
    const id = "msg_mock_0";
    const text = reply.text;
    const refusal = stop === "refusal";
    const kind = refusal ? "refusal" : "output_text";
    const extra = refusal ? {} : { logprobs: [] };
    item(
      { id, type: "message", status: "in_progress", content: [], role: "assistant" },
      (itemId, outputIndex) => {
        const at = { item_id: itemId, output_index: outputIndex, content_index: 0 };
        push("response.content_part.added", { ...at, part: contentPart("", refusal) });
        for (const p of pieces(text, size)) push(`response.${kind}.delta`, { ...at, delta: p, ...extra });
        push(`response.${kind}.done`, { ...at, [refusal ? "refusal" : "text"]: text, ...extra });
        push("response.content_part.done", { ...at, part: contentPart(text, refusal) });
      },
      {
        id,
        type: "message",
        status: incomplete ? "incomplete" : "completed",
        content: [contentPart(text, refusal)],
        role: "assistant",
      },
    );
  }
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    const id = `fc_mock_${i}`;
    const callId = call.id ?? `call_mock_${i}`;
    const args = argsText(call.arguments);
    item(
      { id, type: "function_call", status: "in_progress", arguments: "", call_id: callId, name: call.name },
      (itemId, outputIndex) => {
        const at = { item_id: itemId, output_index: outputIndex };
        for (const p of pieces(args, size))
          push("response.function_call_arguments.delta", { ...at, delta: p });
        push("response.function_call_arguments.done", { ...at, arguments: args });
      },
      { id, type: "function_call", status: "completed", arguments: args, call_id: callId, name: call.name },
    );
  }
  const u = reply.usage ?? {};
  const usage = {
    input_tokens: u.input ?? 10,
    input_tokens_details: { cached_tokens: u.cachedInput ?? 0 },
    output_tokens: u.output ?? 5,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: (u.input ?? 10) + (u.output ?? 5),
  };
  if (incomplete) {
    push("response.incomplete", {
      response: response("incomplete", { incomplete_details: { reason: incomplete }, usage }),
    });
  } else {
    push("response.completed", { response: response("completed", { usage }) });
  }
  return { status: 200, headers: { "content-type": "text/event-stream" }, frames };
}
