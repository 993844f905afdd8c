import { json, type MockReply, pieces, type Rendered, retryAfterHeader } from "../mock-reply.js";
import { ollamaErrorBody } from "./error-bodies.js";

const DONE: Record<string, string> = { length: "length" };

/** A reply as Ollama's /api/chat streams it: one JSON object per line. */
export function renderOllama(reply: MockReply, model: string): Rendered {
  const fault = reply.fault;
  if (fault) {
    switch (fault.type) {
      case "rate_limit":
        return json(429, ollamaErrorBody("too many requests"), retryAfterHeader(fault));
      case "server_error":
        return json(fault.status, ollamaErrorBody("an error was encountered while running the model"));
      case "overloaded":
        return json(
          503,
          ollamaErrorBody("server busy, please try again.  maximum pending requests exceeded"),
        );
      case "context_overflow":
        return json(
          400,
          ollamaErrorBody(
            "the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length",
          ),
        );
      case "tool_unsupported":
        return json(400, ollamaErrorBody(`registry.ollama.ai/library/${model} does not support tools`));
      case "auth":
        return json(401, ollamaErrorBody("unauthorized"));
      case "stream_error":
        break;
    }
  }
  const size = reply.chunkSize ?? 4;
  const frames: string[] = [];
  const line = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    frames.push(
      `${JSON.stringify({ model, created_at: "2026-11-30T10:00:00.000Z", message: { role: "assistant", content: "", ...message }, done: false, ...extra })}\n`,
    );
  for (const p of pieces(reply.reasoning ?? "", size)) line({ thinking: p });
  if (fault?.type === "stream_error") {
    line({ content: fault.afterText ?? "partial" });
    frames.push(`${JSON.stringify(ollamaErrorBody("an error was encountered while running the model"))}\n`);
    return { status: 200, headers: { "content-type": "application/x-ndjson" }, frames };
  }
  for (const p of pieces(reply.text ?? "", size)) line({ content: p });
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    const args = typeof call.arguments === "string" ? JSON.parse(call.arguments) : call.arguments;
    line({
      tool_calls: [
        { id: call.id ?? `call_mock${i}`, function: { index: i, name: call.name, arguments: args } },
      ],
    });
  }
  const u = reply.usage ?? {};
  frames.push(
    `${JSON.stringify({
      model,
      created_at: "2026-11-30T10:00:01.000Z",
      message: { role: "assistant", content: "" },
      done: true,
      done_reason: DONE[reply.stopReason ?? ""] ?? "stop",
      total_duration: 4_883_583_458,
      // A prompt Ollama found in its KV cache is not counted: the field is left out.
      ...(u.input !== null && { prompt_eval_count: u.input ?? 10 }),
      eval_count: u.output ?? 5,
    })}\n`,
  );
  return { status: 200, headers: { "content-type": "application/x-ndjson" }, frames };
}
