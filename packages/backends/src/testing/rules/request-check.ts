import type { Rendered } from "../mock-reply.js";
import type { SignatureRegistry } from "../signature-registry.js";

/** A chat request as the mock received it, with what a rule needs to judge it. */
export interface ParsedRequest {
  /** The parsed JSON body. */
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** The model named in the body or, for Gemini, in the URL. */
  model: string;
  /** The reasoning signatures this mock has issued, to tell a replayed one from a made-up one. */
  signatures: SignatureRegistry;
}

/** A 400 answering a broken request: the vendor's own error body, and its message for the record. */
export interface Rejection extends Rendered {
  message: string;
}

/** A provider's request rules: undefined for a request its real API accepts, else the 400 it answers. */
export type RequestRule = (request: ParsedRequest) => Rejection | undefined;

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The items of an array, each an object (anything else reads as an empty object, keeping positions). */
export function objectsOf(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.map((item) => (isObject(item) ? item : {})) : [];
}

/** The JSON kind of a value as parsers name it in errors: object, array, string, number, boolean, null. */
export function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
