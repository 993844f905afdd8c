import { isObject, type JsonObject, objectsOf } from "./request-check.js";

/** snake_case for a lowerCamel name: Google's JSON reader accepts a field under either. */
export const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A field read under its lowerCamel or its snake_case name. */
export function field(object: JsonObject | undefined, name: string): unknown {
  return object?.[name] ?? object?.[snake(name)];
}

/** The role of a content; none reads as the user's, as the Gemini API defaults it. */
export const roleOf = (content: JsonObject | undefined) => content?.role ?? "user";

export const partsOf = (content: JsonObject | undefined) => objectsOf(content?.parts);

/** The functionCall objects of a content's parts. */
export function callsOf(content: JsonObject | undefined): JsonObject[] {
  return partsOf(content).flatMap((p) => {
    const call = field(p, "functionCall");
    return isObject(call) ? [call] : [];
  });
}

/** The functionResponse objects of a content's parts. */
export function responsesOf(content: JsonObject | undefined): JsonObject[] {
  return partsOf(content).flatMap((p) => {
    const response = field(p, "functionResponse");
    return isObject(response) ? [response] : [];
  });
}
