import {
  argsText,
  json,
  type MockReply,
  pieces,
  type Rendered,
  retryAfterHeader,
  sse,
} from "../mock-reply.js";
import { openAiErrorBody, openAiOverflowBody } from "./error-bodies.js";

const FINISH: Record<string, string> = {
  stop: "stop",
  length: "length",
  tool_use: "tool_calls",
  content_filter: "content_filter",
  // A refusal is a normal stop; what marks it is that the reply came in `delta.refusal`.
  refusal: "stop",
  error: "error",
  other: "stop",
};

/** A reply as OpenAI chat completions streams it. */
export function renderOpenAi(reply: MockReply, model: string): Rendered {
  const fault = reply.fault;
  if (fault) {
    switch (fault.type) {
      case "rate_limit":
        return json(
          429,
          openAiErrorBody("Rate limit reached for requests", "requests", null, "rate_limit_exceeded"),
          retryAfterHeader(fault),
        );
      case "server_error":
        return json(fault.status, openAiErrorBody("The server had an error", "server_error", null, null));
      case "overloaded":
        return json(503, openAiErrorBody("The engine is currently overloaded", "server_error", null, null));
      case "context_overflow":
        return json(400, openAiOverflowBody());
      case "tool_unsupported":
        return json(
          400,
          openAiErrorBody(
            '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
            "BadRequestError",
            null,
            400,
          ),
        );
      case "auth":
        return json(
          401,
          openAiErrorBody("Incorrect API key provided", "invalid_request_error", null, "invalid_api_key"),
        );
      case "stream_error":
        break;
    }
  }
  const size = reply.chunkSize ?? 4;
  const base = { id: "chatcmpl-mock", object: "chat.completion.chunk", created: 1_760_000_000, model };
  const chunk = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });
  const frames: string[] = [];
  const push = (data: unknown) => {
    frames.push(sse(data, reply));
    if (reply.keepAlive) frames.push(`: keep-alive${reply.crlf ? "\r\n\r\n" : "\n\n"}`);
  };
  const refusal = reply.stopReason === "refusal";
  push(
    chunk(
      refusal
        ? { role: "assistant", content: null, refusal: "" }
        : { role: "assistant", content: reply.toolCalls && !reply.text ? null : "" },
    ),
  );
  for (const p of pieces(reply.reasoning ?? "", size)) push(chunk({ reasoning_content: p }));
  if (fault?.type === "stream_error") {
    push(chunk({ content: fault.afterText ?? "partial" }));
    push({
      error: {
        message: "The server had an error while processing your request. Sorry about that!",
        type: "server_error",
      },
    });
    return { status: 200, headers: { "content-type": "text/event-stream" }, frames };
  }
  // A refusal streams its text in `refusal` deltas instead of `content`.
  for (const p of pieces(reply.text ?? "", size)) push(chunk(refusal ? { refusal: p } : { content: p }));
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    const id = call.id ?? `call_mock_${i}`;
    push(
      chunk({
        tool_calls: [{ index: i, id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const p of pieces(argsText(call.arguments), size)) {
      push(chunk({ tool_calls: [{ index: i, function: { arguments: p } }] }));
    }
  }
  const stop = reply.stopReason ?? (reply.toolCalls?.length ? "tool_use" : "stop");
  push(chunk({}, FINISH[stop] ?? "stop"));
  const u = reply.usage ?? {};
  push({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: u.input ?? 10,
      completion_tokens: u.output ?? 5,
      total_tokens: (u.input ?? 10) + (u.output ?? 5),
      prompt_tokens_details: { cached_tokens: u.cachedInput ?? 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0, audio_tokens: 0 },
      ...(u.cost !== undefined && { cost: u.cost }),
    },
  });
  frames.push(sse("[DONE]", reply));
  return { status: 200, headers: { "content-type": "text/event-stream" }, frames };
}
