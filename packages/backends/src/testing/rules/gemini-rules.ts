import { callsOf, field, partsOf, responsesOf, roleOf } from "./gemini-fields.js";
import { signatureProblem } from "./gemini-signature-rules.js";
import { toolProblem, unknownFieldProblem } from "./gemini-tool-rules.js";
import { geminiRejection } from "./rejections.js";
import { isObject, type JsonObject, objectsOf, type ParsedRequest, type Rejection } from "./request-check.js";

/** The fields a part sets its data by; a part must set one (it is a proto oneof). */
const PART_DATA = [
  "text",
  "inlineData",
  "fileData",
  "functionCall",
  "functionResponse",
  "executableCode",
  "codeExecutionResult",
];

/** Roles, and parts: every content has parts, and every part carries data. */
function contentProblem(contents: JsonObject[]): Rejection | undefined {
  if (contents.length === 0)
    return geminiRejection("* GenerateContentRequest.contents: contents is not specified\n");
  for (const content of contents) {
    const role = roleOf(content);
    if (role !== "user" && role !== "model") return geminiRejection("Please use a valid role: user, model.");
  }
  for (const [n, content] of contents.entries()) {
    const parts = partsOf(content);
    if (parts.length === 0)
      return geminiRejection(
        `* GenerateContentRequest.contents[${n}].parts: contents.parts must not be empty.\n`,
      );
    for (const [k, part] of parts.entries()) {
      if (PART_DATA.some((name) => field(part, name) !== undefined)) continue;
      return geminiRejection(
        `* GenerateContentRequest.contents[${n}].parts[${k}].data: required oneof field 'data' must have one initialized field\n`,
      );
    }
  }
  return undefined;
}

/**
 * Function calls and responses alternate: a call turn follows a user turn (or the responses to earlier
 * calls), responses come right after the call turn, one per call, and a response id names a call of it.
 */
function turnProblem(contents: JsonObject[]): Rejection | undefined {
  for (const [n, content] of contents.entries()) {
    const before = contents[n - 1];
    if (
      roleOf(content) === "model" &&
      callsOf(content).length > 0 &&
      (before === undefined || roleOf(before) !== "user")
    )
      return geminiRejection(
        "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
      );
    const responses = responsesOf(content);
    if (responses.length === 0) continue;
    const calls = roleOf(before) === "model" ? callsOf(before) : [];
    if (calls.length === 0)
      return geminiRejection(
        "Please ensure that function response turn comes immediately after a function call turn.",
      );
    if (responses.length !== calls.length)
      return geminiRejection(
        "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
      );
    const ids = new Set(calls.flatMap((c) => (typeof c.id === "string" ? [c.id] : [])));
    if (ids.size > 0 && responses.some((r) => typeof r.id === "string" && !ids.has(r.id)))
      return geminiRejection("functionResponse.id does not match functionCall.id");
  }
  return undefined;
}

/** Gemini's streamGenerateContent: the 400 it answers a broken request with, if any. */
export function checkGeminiRequest(request: ParsedRequest): Rejection | undefined {
  const body = isObject(request.body) ? request.body : {};
  const contents = objectsOf(body.contents);
  return (
    unknownFieldProblem(body) ??
    contentProblem(contents) ??
    toolProblem(body) ??
    turnProblem(contents) ??
    signatureProblem(request, contents)
  );
}
