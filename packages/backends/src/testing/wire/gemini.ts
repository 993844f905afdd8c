import { argsText, json, type MockReply, pieces, type Rendered, sse } from "../mock-reply.js";

const FINISH: Record<string, string> = { length: "MAX_TOKENS", content_filter: "SAFETY", other: "OTHER" };

const error = (code: number, status: string, message: string, details: unknown[] = []) => ({
  error: { code, message, status, details },
});

/** A reply as Gemini's streamGenerateContent?alt=sse streams it (CRLF line endings, as Gemini sends). */
export function renderGemini(reply: MockReply, model: string): Rendered {
  const r: MockReply = { crlf: true, ...reply };
  const fault = r.fault;
  if (fault) {
    switch (fault.type) {
      case "rate_limit": {
        const seconds = typeof fault.retryAfter === "number" ? fault.retryAfter : 31;
        return json(
          429,
          error(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", [
            {
              "@type": "type.googleapis.com/google.rpc.QuotaFailure",
              violations: [{ quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }],
            },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` },
          ]),
        );
      }
      case "server_error":
        return json(
          fault.status,
          error(fault.status, "INTERNAL", "An internal error has occurred. Please retry."),
        );
      case "overloaded":
        return json(503, error(503, "UNAVAILABLE", "The model is overloaded. Please try again later."));
      case "context_overflow":
        return json(
          400,
          error(
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
          ),
        );
      case "tool_unsupported":
        return json(
          400,
          error(400, "INVALID_ARGUMENT", `Function calling is not enabled for models/${model}`),
        );
      case "auth":
        return json(
          400,
          error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
            { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" },
          ]),
        );
      case "stream_error":
        break;
    }
  }
  const size = r.chunkSize ?? 4;
  const u = r.usage ?? {};
  const thoughts = pieces(r.reasoning ?? "", size);
  const texts = pieces(r.text ?? "", size);
  const chunks = thoughts.length + texts.length + 1;
  const frames: string[] = [];
  // Usage is cumulative, as Gemini reports it: the counts grow with each chunk and end at the totals.
  const usageAfter = (chunk: number) => {
    const share = (n: number) => Math.round((n * chunk) / chunks);
    const thought = share(u.reasoning ?? 0);
    const output = share(u.output ?? 5);
    return {
      promptTokenCount: u.input ?? 10,
      cachedContentTokenCount: u.cachedInput ?? 0,
      candidatesTokenCount: output - thought,
      thoughtsTokenCount: thought,
      totalTokenCount: (u.input ?? 10) + output,
    };
  };
  let pushed = 0;
  const push = (parts: unknown[], finishReason?: string) => {
    const usageMetadata = usageAfter(++pushed);
    frames.push(
      sse(
        {
          candidates: [
            { content: { role: "model", parts }, index: 0, ...(finishReason && { finishReason }) },
          ],
          usageMetadata,
          modelVersion: model,
          responseId: "mock",
        },
        r,
      ),
    );
    if (r.keepAlive) frames.push(": keep-alive\r\n\r\n");
  };
  for (const [i, p] of thoughts.entries()) {
    push([
      {
        text: p,
        thought: true,
        ...(i === thoughts.length - 1 && r.reasoningSignature && { thoughtSignature: r.reasoningSignature }),
      },
    ]);
  }
  if (fault?.type === "stream_error") {
    push([{ text: fault.afterText ?? "partial" }]);
    frames.push(`${JSON.stringify(error(500, "INTERNAL", "An internal error has occurred."))}\r\n`);
    return { status: 200, headers: { "content-type": "text/event-stream" }, frames };
  }
  for (const p of texts) push([{ text: p }]);
  const calls = (r.toolCalls ?? []).map((c, i) => ({
    functionCall: { ...(c.id && { id: c.id }), name: c.name, args: JSON.parse(argsText(c.arguments)) },
    ...(i === 0 && r.reasoningSignature && { thoughtSignature: r.reasoningSignature }),
  }));
  const finish = FINISH[r.stopReason ?? ""] ?? "STOP";
  push(calls.length > 0 ? calls : [{ text: "" }], finish);
  return { status: 200, headers: { "content-type": "text/event-stream" }, frames };
}
