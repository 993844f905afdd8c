import { ollamaRejection } from "./rejections.js";
import {
  isObject,
  type JsonObject,
  jsonKind,
  objectsOf,
  type ParsedRequest,
  type Rejection,
} from "./request-check.js";

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/**
 * Tool-call arguments are an object on Ollama's wire. Go's JSON decoder refuses any other kind while
 * binding the body, so this is found before anything else. (Go's wording of the field path has varied with
 * its version: older servers said `ChatRequest.messages`.)
 */
function bindingProblem(messages: JsonObject[]): string | undefined {
  for (const m of messages) {
    for (const call of objectsOf(m.tool_calls)) {
      const args = isObject(call.function) ? call.function.arguments : undefined;
      if (args === undefined || args === null || isObject(args)) continue;
      return `json: cannot unmarshal ${jsonKind(args) === "boolean" ? "bool" : jsonKind(args)} into Go struct field ToolCallFunction.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments`;
    }
  }
  return undefined;
}

/**
 * Roles Ollama's chat templates know. Ollama itself passes any role to the template; the mock is stricter
 * so that a client sending an OpenAI-only role (developer) to /api/chat is caught.
 */
function roleProblem(messages: JsonObject[]): string | undefined {
  const bad = messages.find((m) => typeof m.role !== "string" || !ROLES.has(m.role));
  return bad === undefined
    ? undefined
    : `invalid message role "${String(bad.role)}": must be one of system, user, assistant, tool`;
}

/** Ollama's /api/chat: the 400 it answers a broken request with, if any. */
export function checkOllamaRequest(request: ParsedRequest): Rejection | undefined {
  const body = isObject(request.body) ? request.body : {};
  const messages = objectsOf(body.messages);
  const model = typeof body.model === "string" ? body.model.trim() : "";
  const problem =
    bindingProblem(messages) ?? (model === "" ? "model is required" : undefined) ?? roleProblem(messages);
  return problem === undefined ? undefined : ollamaRejection(problem);
}
