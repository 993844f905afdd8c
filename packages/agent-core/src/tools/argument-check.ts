import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { listProblems } from "./argument-problems.js";

/**
 * Checks a call's arguments against its tool's JSON Schema before the tool runs, so a model that sends a
 * wrong type or leaves out a required field reads what to fix instead of a tool's confused failure.
 * Tools' schemas come from many hands: unknown keywords and formats are allowed (`strict: false`), and a
 * schema that cannot be compiled checks nothing rather than blocking the tool.
 */
let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;
const compiled = new WeakMap<object, ValidateFunction | null>();
const options = { strict: false, allErrors: true, validateFormats: false };

/**
 * The validator for the schema's dialect: draft 2020-12 when its `$schema` says so (what zod 4 and many MCP
 * servers write), else draft-07 — the dialect of most tools, which a schema without `$schema` is taken for.
 */
function ajvFor(schema: object): Ajv | Ajv2020 {
  const dialect = (schema as { $schema?: unknown }).$schema;
  if (typeof dialect === "string" && dialect.includes("2020-12")) {
    draft2020 ??= new Ajv2020(options);
    return draft2020;
  }
  draft7 ??= new Ajv(options);
  return draft7;
}

function validatorOf(schema: object): ValidateFunction | null {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    try {
      validate = ajvFor(schema).compile(schema);
    } catch {
      validate = null;
    }
    compiled.set(schema, validate);
  }
  return validate;
}

function describeProblem(e: ErrorObject): string {
  const where = e.instancePath === "" ? "the arguments" : e.instancePath.slice(1).replaceAll("/", ".");
  if (e.keyword === "required") return `${where} lack the required field '${e.params.missingProperty}'`;
  if (e.keyword === "additionalProperties")
    return `${where} have a field the tool does not take: '${e.params.additionalProperty}'`;
  if (e.keyword === "enum") return `${where} must be one of ${JSON.stringify(e.params.allowedValues)}`;
  return `${where} ${e.message ?? "do not match the schema"}`;
}

/** Why `args` do not fit `schema`, in words a model can act on; undefined when they fit (or cannot be checked). */
export function argumentProblems(schema: unknown, args: Record<string, unknown>): string | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const validate = validatorOf(schema);
  if (!validate || validate(args)) return undefined;
  return listProblems((validate.errors ?? []).map(describeProblem));
}
