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
import { anthropicErrorBody as error } from "./error-bodies.js";

const STOP: Record<string, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_use: "tool_use",
  content_filter: "refusal",
  refusal: "refusal",
  error: "end_turn",
  other: "stop_sequence",
};

/**
 * A reply as Anthropic's messages API streams it. The thinking signature and redacted-thinking data it hands
 * out are recorded in `signatures`, so that a later request may replay them to this model.
 */
export function renderAnthropic(
  reply: MockReply,
  model: string,
  signatures = new SignatureRegistry(),
): Rendered {
  const fault = reply.fault;
  if (fault) {
    switch (fault.type) {
      case "rate_limit":
        return json(
          429,
          error("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
          retryAfterHeader(fault),
        );
      case "server_error":
        return json(fault.status, error("api_error", "Internal server error"));
      case "overloaded":
        return json(529, error("overloaded_error", "Overloaded"));
      case "context_overflow":
        return json(
          400,
          error("invalid_request_error", "prompt is too long: 208656 tokens > 200000 maximum"),
        );
      case "tool_unsupported":
        return json(400, error("invalid_request_error", `${model} does not support tools`));
      case "auth":
        return json(401, error("authentication_error", "invalid x-api-key"));
      case "stream_error":
        break;
    }
  }
  const size = reply.chunkSize ?? 4;
  const frames: string[] = [];
  const push = (event: string, data: unknown) => {
    frames.push(sse(data, reply, event));
    if (reply.ping) frames.push(sse({ type: "ping" }, reply, "ping"));
    if (reply.keepAlive) frames.push(`: keep-alive${reply.crlf ? "\r\n\r\n" : "\n\n"}`);
  };
  const u = reply.usage ?? {};
  const cached = u.cachedInput ?? 0;
  const created = u.cacheCreation ?? 0;
  const uncached = (u.input ?? 10) - cached - created;
  push("message_start", {
    type: "message_start",
    message: {
      id: "msg_mock",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: uncached,
        cache_creation_input_tokens: created,
        cache_read_input_tokens: cached,
        output_tokens: 1,
      },
    },
  });
  let index = 0;
  if (reply.reasoning !== undefined) {
    push("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    for (const p of pieces(reply.reasoning, size)) {
      push("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "thinking_delta", thinking: p },
      });
    }
    push("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: {
        type: "signature_delta",
        signature: signatures.issue("anthropic", model, reply.reasoningSignature),
      },
    });
    push("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  if (reply.redactedReasoning !== undefined) {
    // Redacted thinking arrives whole in its start event, with no deltas.
    const data = signatures.issue("anthropic", model, reply.redactedReasoning);
    push("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "redacted_thinking", data },
    });
    push("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  if (fault?.type === "stream_error") {
    push("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "text", text: "" },
    });
    push("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: { type: "text_delta", text: fault.afterText ?? "partial" },
    });
    frames.push(
      sse(
        { type: "error", error: { details: null, type: "overloaded_error", message: "Overloaded" } },
        reply,
        "error",
      ),
    );
    return { status: 200, headers: { "content-type": "text/event-stream" }, frames };
  }
  if (reply.text !== undefined) {
    push("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "text", text: "" },
    });
    for (const p of pieces(reply.text, size)) {
      push("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: p },
      });
    }
    push("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    push("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: call.id ?? `toolu_mock_${i}`, name: call.name, input: {} },
    });
    push("content_block_delta", {
      type: "content_block_delta",
      index,
      delta: { type: "input_json_delta", partial_json: "" },
    });
    for (const p of pieces(argsText(call.arguments), size)) {
      push("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: p },
      });
    }
    push("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  const stop = reply.stopReason ?? (reply.toolCalls?.length ? "tool_use" : "stop");
  push("message_delta", {
    type: "message_delta",
    delta: { stop_reason: STOP[stop] ?? "end_turn", stop_sequence: null },
    usage: {
      output_tokens: u.output ?? 5,
      ...(u.reasoning !== undefined && { output_tokens_details: { thinking_tokens: u.reasoning } }),
    },
  });
  frames.push(sse({ type: "message_stop" }, reply, "message_stop"));
  return { status: 200, headers: { "content-type": "text/event-stream" }, frames };
}
