import { argsText, json, type MockReply, pieces, type Rendered, sse } from "../mock-reply.js";
import { signsFunctionCalls } from "../rules/gemini-signature-rules.js";
import { SignatureRegistry } from "../signature-registry.js";
import { geminiErrorBody as error } from "./error-bodies.js";

const FINISH: Record<string, string> = { length: "MAX_TOKENS", content_filter: "SAFETY", other: "OTHER" };

type Part = Record<string, unknown>;

/** A fault as Gemini answers it before any stream; undefined for a fault that arrives mid-stream. */
function faultResponse(reply: MockReply, model: string): Rendered | undefined {
  const fault = reply.fault;
  switch (fault?.type) {
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
      return json(400, error(400, "INVALID_ARGUMENT", `Function calling is not enabled for models/${model}`));
    case "auth":
      return json(
        400,
        error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
          { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" },
        ]),
      );
    default:
      return undefined;
  }
}

/**
 * The thought signature a reply carries, recorded for this model: the script's own, or a fresh one when
 * the model thought (there is reasoning), or when a Gemini 3 model calls functions — Gemini 3 signs every
 * function-call turn and refuses the turn back without its signature.
 */
function signatureOf(r: MockReply, model: string, signatures: SignatureRegistry): string | undefined {
  const signs =
    r.reasoningSignature !== undefined ||
    r.reasoning !== undefined ||
    (signsFunctionCalls(model) && (r.toolCalls?.length ?? 0) > 0);
  return signs ? signatures.issue("gemini", model, r.reasoningSignature) : undefined;
}

/** The text of the call a model got wrong, as Gemini quotes it after "Malformed function call: ". */
function malformedCallText(r: MockReply): string {
  return r.text ?? (r.toolCalls ?? []).map((c) => `${c.name}(${argsText(c.arguments)})`).join("; ");
}

/**
 * A reply as Gemini's streamGenerateContent?alt=sse streams it (CRLF line endings, as Gemini sends). A
 * thought signature rides where Gemini puts it: on the first function call, else on the last text part,
 * else on the last thought; it is recorded in `signatures` so that a later request may replay it.
 */
export function renderGemini(
  reply: MockReply,
  model: string,
  signatures = new SignatureRegistry(),
): Rendered {
  const r: MockReply = { crlf: true, ...reply };
  const failed = faultResponse(r, model);
  if (failed) return failed;
  const fault = r.fault;
  const nl = r.crlf ? "\r\n" : "\n";
  const size = r.chunkSize ?? 4;
  const u = r.usage ?? {};
  const input = u.input ?? 10;
  const frames: string[] = [];
  const stream = (): Rendered => ({ status: 200, headers: { "content-type": "text/event-stream" }, frames });
  if (r.stopReason === "blocked") {
    // A blocked prompt gets one chunk with the block reason and no candidates, then the stream ends.
    frames.push(
      sse(
        {
          promptFeedback: { blockReason: "SAFETY" },
          usageMetadata: { promptTokenCount: input, totalTokenCount: input },
          modelVersion: model,
          responseId: "mock",
        },
        r,
      ),
    );
    return stream();
  }
  const malformed = r.stopReason === "malformed_call";
  const signature = signatureOf(r, model, signatures);
  const calls = malformed ? [] : (r.toolCalls ?? []);
  const thoughts = pieces(r.reasoning ?? "", size);
  const texts = malformed ? [] : pieces(r.text ?? "", size);
  const chunks = thoughts.length + texts.length + 1;
  // Usage is cumulative, as Gemini reports it: the counts grow with each chunk and end at the totals.
  const usageAfter = (chunk: number) => {
    const share = (n: number) => Math.round((n * chunk) / chunks);
    const thought = share(u.reasoning ?? 0);
    const output = share(u.output ?? 5);
    return {
      promptTokenCount: input,
      cachedContentTokenCount: u.cachedInput ?? 0,
      candidatesTokenCount: output - thought,
      thoughtsTokenCount: thought,
      totalTokenCount: input + output,
    };
  };
  let pushed = 0;
  const push = (candidate: Record<string, unknown>) => {
    const usageMetadata = usageAfter(++pushed);
    frames.push(
      sse(
        { candidates: [{ ...candidate, index: 0 }], usageMetadata, modelVersion: model, responseId: "mock" },
        r,
      ),
    );
    if (r.keepAlive) frames.push(`: keep-alive${nl}${nl}`);
  };
  const pushParts = (parts: Part[], finishReason?: string) =>
    push({ content: { role: "model", parts }, ...(finishReason && { finishReason }) });
  const signedHere = (last: boolean, owner: boolean) =>
    last && owner && signature !== undefined ? { thoughtSignature: signature } : {};
  for (const [i, p] of thoughts.entries()) {
    const owner = calls.length === 0 && texts.length === 0;
    pushParts([{ text: p, thought: true, ...signedHere(i === thoughts.length - 1, owner) }]);
  }
  if (fault?.type === "stream_error") {
    pushParts([{ text: fault.afterText ?? "partial" }]);
    const body = error(500, "INTERNAL", "An internal error has occurred.");
    // Google's servers pretty-print a mid-stream error over several raw (not SSE) lines.
    const raw = fault.pretty ? JSON.stringify(body, null, 2).split("\n").join(nl) : JSON.stringify(body);
    frames.push(`${raw}${nl}`);
    return stream();
  }
  for (const [i, p] of texts.entries())
    pushParts([{ text: p, ...signedHere(i === texts.length - 1, calls.length === 0) }]);
  if (malformed) {
    // The model's call could not be parsed: no parts, and the text of the call in finishMessage.
    push({
      finishReason: "MALFORMED_FUNCTION_CALL",
      finishMessage: `Malformed function call: ${malformedCallText(r)}`,
    });
    return stream();
  }
  const callParts = calls.map((c, i) => ({
    functionCall: { ...(c.id && { id: c.id }), name: c.name, args: JSON.parse(argsText(c.arguments)) },
    ...signedHere(i === 0, true),
  }));
  pushParts(callParts.length > 0 ? callParts : [{ text: "" }], FINISH[r.stopReason ?? ""] ?? "STOP");
  return stream();
}
