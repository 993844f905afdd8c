import { callsOf, field, partsOf, roleOf } from "./gemini-fields.js";
import { geminiRejection } from "./rejections.js";
import type { JsonObject, ParsedRequest, Rejection } from "./request-check.js";

/** The value Gemini's docs offer for a call whose real signature is lost: it skips the check. */
const BYPASS = "skip_thought_signature_validator";

/** Every thought signature sent back must be one this mock issued for this model (or a bypass value). */
function corruptedProblem(request: ParsedRequest, contents: JsonObject[]): Rejection | undefined {
  for (const content of contents) {
    for (const part of partsOf(content)) {
      const signature = field(part, "thoughtSignature");
      if (signature === undefined || signature === BYPASS) continue;
      if (!request.signatures.accepts("gemini", request.model, signature))
        return geminiRejection("Corrupted thought signature.");
    }
  }
  return undefined;
}

/** Where the current turn starts: after the last user content that says something (has a text part). */
function currentTurnStart(contents: JsonObject[]): number {
  for (let i = contents.length - 1; i >= 0; i--) {
    if (roleOf(contents[i]) === "user" && partsOf(contents[i]).some((p) => typeof p.text === "string"))
      return i + 1;
  }
  return 0;
}

/** Gemini 3 and later sign every function-call step, and want the signature back. */
export const signsFunctionCalls = (model: string) => model.startsWith("gemini-3");

/**
 * Gemini 3 signs each function-call step of the current turn on its first functionCall part and refuses
 * the step back without that signature. `position` counts contents from 1.
 */
function missingProblem(request: ParsedRequest, contents: JsonObject[]): Rejection | undefined {
  if (!signsFunctionCalls(request.model)) return undefined;
  for (let i = currentTurnStart(contents); i < contents.length; i++) {
    if (roleOf(contents[i]) !== "model") continue;
    const first = partsOf(contents[i]).find((p) => field(p, "functionCall") !== undefined);
    if (first === undefined || field(first, "thoughtSignature") !== undefined) continue;
    const name = String(callsOf(contents[i])[0]?.name);
    return geminiRejection(
      `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
    );
  }
  return undefined;
}

/** Thought signatures: none forged or foreign, and none missing where Gemini 3 requires one. */
export function signatureProblem(request: ParsedRequest, contents: JsonObject[]): Rejection | undefined {
  return corruptedProblem(request, contents) ?? missingProblem(request, contents);
}
