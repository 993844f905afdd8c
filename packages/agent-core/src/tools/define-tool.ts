import { argumentsRefused, issueProblems } from "./argument-problems.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import type { ToolInfo, ToolResult } from "./tool-executor.js";
import { describeInput } from "./tool-json-schema.js";
import type { FunctionTool } from "./tool-set.js";

/** A JSON Schema object, as the providers take a tool's parameters. */
export type JsonSchema = Record<string, unknown>;

/**
 * What `run` receives for a tool whose arguments `Input` describes: a Standard Schema's output (after its
 * transforms and defaults), or `unknown` for a plain JSON Schema, which says nothing TypeScript can see.
 */
export type ToolArguments<Input extends StandardSchemaV1 | JsonSchema> = Input extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<Input>
  : unknown;

/** A tool as `defineTool` takes it: a FunctionTool whose arguments are described by `input`. */
export type ToolDefinition<Input extends StandardSchemaV1 | JsonSchema> = Omit<
  ToolInfo,
  "parameters" | "checksArguments"
> & {
  /**
   * The arguments: a Standard Schema (zod 4, valibot, arktype…), which checks every call and types `run`'s
   * arguments, or a plain JSON Schema, which the loop checks calls against and which types them `unknown`.
   */
  input: Input;
  /**
   * Runs a call whose arguments passed the check, with the schema's output. Return the output text or a
   * ToolResult; throw to report an error to the model.
   */
  // A property, not a method, so that a handler wanting more than the schema gives is a type error.
  run: (
    args: ToolArguments<Input>,
    context: { signal: AbortSignal },
  ) => Promise<string | ToolResult> | string;
} & (Input extends StandardSchemaV1
    ? {
        /**
         * The JSON Schema the model is shown, for a schema that cannot describe itself (one without
         * Standard JSON Schema, such as a bare valibot schema); by default the schema's own.
         */
        parameters?: JsonSchema;
      }
    : { parameters?: never });

function isStandardSchema(input: StandardSchemaV1 | JsonSchema): input is StandardSchemaV1 {
  const standard = (input as Partial<StandardSchemaV1>)["~standard"];
  return typeof standard === "object" && standard !== null && typeof standard.validate === "function";
}

/**
 * A FunctionTool from a schema that carries its type: `run` receives the arguments as the schema types
 * them. With a Standard Schema, the tool shows the model the schema's JSON Schema (its own, or zod's for a
 * zod 4 schema, or `parameters`), checks each call with the schema's `validate` — a call that does not fit
 * is answered with an error result naming the tool and the schema's issues, and `run` is not called — and
 * passes `run` the validated output. Throws ToolSchemaError at once when no JSON Schema can be had.
 */
export function defineTool<Input extends StandardSchemaV1 | JsonSchema>(
  definition: ToolDefinition<Input>,
): FunctionTool {
  const { input, run, parameters, ...info } = definition;
  if (!isStandardSchema(input)) {
    return { ...info, parameters: input, run: run as FunctionTool["run"] };
  }
  const typedRun = run as (
    args: unknown,
    context: { signal: AbortSignal },
  ) => ReturnType<FunctionTool["run"]>;
  return {
    ...info,
    parameters: parameters ?? describeInput(info.name, input),
    checksArguments: true,
    async run(args, context) {
      // Called on its object, as a method: a library's validate may use `this`.
      const checked = await input["~standard"].validate(args);
      if (checked.issues)
        return { output: argumentsRefused(info.name, issueProblems(checked.issues)), isError: true };
      return typedRun(checked.value, context);
    },
  };
}
