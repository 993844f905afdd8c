import { type core, toJSONSchema } from "zod";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "./standard-schema.js";

/**
 * The dialect a schema is asked to describe itself in. Draft-07 is what the providers' own SDKs and the
 * AI SDK send, and every provider takes; the Standard JSON Schema specification asks libraries to support it.
 */
const TARGET = "draft-07";

/** A tool's schema could not be turned into the JSON Schema the model is shown: thrown when it is defined. */
export class ToolSchemaError extends Error {
  override readonly name = "ToolSchemaError";
  constructor(
    readonly tool: string,
    /** The schema's library, as it names itself (`~standard.vendor`). */
    readonly vendor: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(
      `tool '${tool}': its ${vendor} schema cannot be described as JSON Schema (${reason}); pass the JSON Schema the model should see as 'parameters' beside it`,
      options,
    );
  }
}

type MaybeDescribed = StandardSchemaV1.Props & Partial<Pick<StandardJSONSchemaV1.Props, "jsonSchema">>;

/**
 * A zod 4 schema made before zod 4.2, which has no `~standard.jsonSchema` yet; this package's own zod
 * describes it. (A zod 3 schema has no `_zod` and is left to the caller.)
 */
const isZod4 = (schema: object, vendor: string): schema is core.$ZodType =>
  vendor === "zod" && "_zod" in schema;

/**
 * The JSON Schema of what the model sends — the schema's input, before any transform: the schema's own
 * (Standard JSON Schema), else zod's for a zod 4 schema without it. Throws ToolSchemaError when neither can.
 */
export function describeInput(tool: string, schema: StandardSchemaV1): Record<string, unknown> {
  const standard: MaybeDescribed = schema["~standard"];
  try {
    if (standard.jsonSchema) return standard.jsonSchema.input({ target: TARGET });
    if (isZod4(schema, standard.vendor)) return toJSONSchema(schema, { target: "draft-7", io: "input" });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolSchemaError(tool, standard.vendor, reason, { cause: error });
  }
  throw new ToolSchemaError(tool, standard.vendor, "it does not implement Standard JSON Schema");
}
