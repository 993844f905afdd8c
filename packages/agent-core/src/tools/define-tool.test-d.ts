import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineTool, type ToolArguments } from "./define-tool.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import { type FunctionTool, ToolSet } from "./tool-set.js";

/** A Standard Schema made by hand, as valibot's `v.object(...)` is: a plain object with `~standard`. */
function valibotLike<Input, Output>(parse: (value: unknown) => Output): StandardSchemaV1<Input, Output> {
  return {
    "~standard": { version: 1, vendor: "valibot", validate: (value) => ({ value: parse(value) }) },
  };
}

/** As arktype's `type(...)` is: a function that validates when called, carrying `~standard` as well. */
function arktypeLike<Input, Output>(parse: (value: unknown) => Output) {
  const validator = (value: unknown) => parse(value);
  const standard: StandardSchemaV1.Props<Input, Output> = {
    version: 1,
    vendor: "arktype",
    validate: (value) => ({ value: parse(value) }),
  };
  return Object.assign(validator, { "~standard": standard });
}

const given =
  <T>() =>
  (value: unknown) =>
    value as T;

describe("defineTool infers run's arguments from the schema", () => {
  it("a zod schema: its output, optional fields, defaults and transforms included", () => {
    const input = z.object({
      path: z.string(),
      limit: z.number().int().optional(),
      encoding: z.enum(["utf8", "base64"]).default("utf8"),
      lines: z.string().transform((s) => s.split(",").map(Number)),
    });
    defineTool({
      name: "read",
      description: "Reads a file",
      input,
      run: (args, context) => {
        expectTypeOf(args).toEqualTypeOf<{
          path: string;
          limit?: number | undefined;
          encoding: "utf8" | "base64";
          lines: number[];
        }>();
        expectTypeOf(args).toEqualTypeOf<z.output<typeof input>>();
        expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
        return args.path;
      },
    });
    expectTypeOf<ToolArguments<typeof input>>().toEqualTypeOf<z.output<typeof input>>();
  });

  it("a valibot-like Standard Schema object: its output type", () => {
    defineTool({
      name: "greet",
      description: "Greets someone",
      input: valibotLike<{ name: string }, { name: string; greeting: string }>(given()),
      parameters: { type: "object", properties: { name: { type: "string" } } },
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ name: string; greeting: string }>();
        return `${args.greeting}, ${args.name}`;
      },
    });
  });

  it("an arktype-like callable Standard Schema: its output type", () => {
    defineTool({
      name: "count",
      description: "Counts",
      input: arktypeLike<{ n: string }, { n: number }>(given()),
      parameters: { type: "object", properties: { n: { type: "string" } } },
      run: async ({ n }) => {
        expectTypeOf(n).toEqualTypeOf<number>();
        return { output: String(n + 1) };
      },
    });
  });

  it("a plain JSON Schema: unknown, which run must narrow itself", () => {
    defineTool({
      name: "echo",
      description: "Echoes",
      input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      run: (args) => {
        expectTypeOf(args).toEqualTypeOf<unknown>();
        return JSON.stringify(args);
      },
    });
    expectTypeOf<ToolArguments<{ type: "object" }>>().toEqualTypeOf<unknown>();
  });

  it("gives a FunctionTool, which a ToolSet takes beside untyped tools", () => {
    const typed = defineTool({
      name: "t",
      description: "typed",
      input: z.object({ a: z.string() }),
      readSafe: true,
      run: ({ a }) => a,
    });
    expectTypeOf(typed).toEqualTypeOf<FunctionTool>();
    const untyped: FunctionTool = { name: "u", description: "untyped", parameters: {}, run: () => "" };
    new ToolSet([typed, untyped]);
  });
});

describe("a handler the schema does not fit is a type error", () => {
  const input = z.object({ text: z.string() });

  it("a field of another type", () => {
    defineTool({
      name: "wrong",
      description: "wrong",
      input,
      // @ts-expect-error: text is a string, not a number
      run: (args: { text: number }) => String(args.text),
    });
  });

  it("a field the schema does not have", () => {
    defineTool({
      name: "wrong",
      description: "wrong",
      input,
      // @ts-expect-error: the schema gives no count
      run: (args: { text: string; count: number }) => args.text.repeat(args.count),
    });
  });

  it("a use of the arguments that their type refuses", () => {
    defineTool({
      name: "wrong",
      description: "wrong",
      input,
      // @ts-expect-error: a string has no toFixed
      run: ({ text }) => text.toFixed(2),
    });
  });

  it("a result that is neither text nor a ToolResult", () => {
    defineTool({
      name: "wrong",
      description: "wrong",
      input,
      // @ts-expect-error: run returns the output text or a ToolResult
      run: ({ text }) => text.length,
    });
  });

  it("checksArguments, which is the tool's to say, not its definer's", () => {
    defineTool({
      name: "wrong",
      description: "wrong",
      input: { type: "object" },
      // @ts-expect-error: nothing would check the calls
      checksArguments: true,
      run: () => "",
    });
  });

  it("parameters beside a plain JSON Schema, which is already the one the model sees", () => {
    defineTool({
      name: "wrong",
      description: "wrong",
      input: { type: "object" },
      // @ts-expect-error: only a Standard Schema takes parameters beside it
      parameters: { type: "object" },
      run: () => "",
    });
  });
});
