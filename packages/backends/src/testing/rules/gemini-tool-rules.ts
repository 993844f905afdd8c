import { field, snake } from "./gemini-fields.js";
import { geminiRejection } from "./rejections.js";
import { isObject, type JsonObject, objectsOf, type Rejection } from "./request-check.js";

/**
 * The fields of Gemini's `Schema` (an OpenAPI subset) that `parameters` may use. JSON-Schema keywords
 * beyond them (additionalProperties, $schema, $ref, const, oneOf, allOf, not, exclusiveMinimum, multipleOf,
 * propertyNames…) are unknown fields to Google's JSON reader; `parametersJsonSchema` takes plain JSON Schema.
 */
const SCHEMA_FIELDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

const DECLARATION_FIELDS = new Set([
  "name",
  "description",
  "behavior",
  "parameters",
  "parametersJsonSchema",
  "response",
  "responseJsonSchema",
]);

const known = (fields: Set<string>, key: string) =>
  fields.has(key) || [...fields].some((name) => snake(name) === key);

interface Violation {
  field: string;
  description: string;
}

const unknownName = (name: string, path: string): Violation => ({
  field: path,
  description: `Invalid JSON payload received. Unknown name "${name}" at '${path}': Cannot find field.`,
});

/** Unknown fields anywhere in a `parameters` schema, with the paths Google's reader names them by. */
function schemaViolations(schema: unknown, path: string, out: Violation[]): void {
  if (!isObject(schema)) return;
  for (const key of Object.keys(schema)) if (!known(SCHEMA_FIELDS, key)) out.push(unknownName(key, path));
  const properties = field(schema, "properties");
  if (isObject(properties)) {
    for (const [i, p] of Object.values(properties).entries())
      schemaViolations(p, `${path}.properties[${i}].value`, out);
  }
  schemaViolations(field(schema, "items"), `${path}.items`, out);
  for (const [i, s] of objectsOf(field(schema, "anyOf")).entries())
    schemaViolations(s, `${path}.any_of[${i}]`, out);
}

/** The function declarations of every tool, each with its path in the request. */
function declarationsOf(body: JsonObject): Array<{ declaration: JsonObject; path: string }> {
  return objectsOf(body.tools).flatMap((tool, t) =>
    objectsOf(field(tool, "functionDeclarations")).map((declaration, d) => ({
      declaration,
      path: `tools[${t}].function_declarations[${d}]`,
    })),
  );
}

/**
 * Fields Google's JSON reader cannot place, which it reports before looking at anything else: all of them
 * at once, one line each, with a BadRequest detail per field.
 */
export function unknownFieldProblem(body: JsonObject): Rejection | undefined {
  const violations: Violation[] = [];
  for (const { declaration, path } of declarationsOf(body)) {
    for (const key of Object.keys(declaration))
      if (!known(DECLARATION_FIELDS, key)) violations.push(unknownName(key, path));
    schemaViolations(declaration.parameters, `${path}.parameters`, violations);
  }
  if (violations.length === 0) return undefined;
  return geminiRejection(violations.map((v) => v.description).join("\n"), [
    { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: violations },
  ]);
}

/** A declaration gives its parameters one way only; a calling config needs declarations to govern. */
export function toolProblem(body: JsonObject): Rejection | undefined {
  const declarations = declarationsOf(body);
  for (const { declaration, path } of declarations) {
    if (declaration.parameters !== undefined && field(declaration, "parametersJsonSchema") !== undefined)
      return geminiRejection(
        `* GenerateContentRequest.${path}: parameters and parameters_json_schema are mutually exclusive; set only one of them.\n`,
      );
  }
  const config = field(body, "toolConfig");
  if (isObject(config) && field(config, "functionCallingConfig") !== undefined && declarations.length === 0)
    return geminiRejection("Function calling config is set without function_declarations.");
  return undefined;
}
