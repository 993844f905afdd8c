import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { defineTool } from "./define-tool.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import { ToolSchemaError } from "./tool-json-schema.js";
import { ToolSet } from "./tool-set.js";

const signal = new AbortController().signal;

/** A Standard Schema without Standard JSON Schema, as valibot's schemas are: it checks for a `name` string. */
const named: StandardSchemaV1<{ name: string }, { name: string; length: number }> = {
  "~standard": {
    version: 1,
    vendor: "valibot",
    validate: async (value) => {
      const name = (value as { name?: unknown }).name;
      if (typeof name !== "string")
        return { issues: [{ message: "Expected string", path: [{ key: "name" }] }] };
      return { value: { name, length: name.length } };
    },
  },
};

describe("the JSON Schema a typed tool shows the model", () => {
  it("is a zod schema's own description of its input (Standard JSON Schema), in draft-07", () => {
    const tool = defineTool({
      name: "read",
      description: "Reads a file",
      input: z.object({
        path: z.string().describe("the file"),
        limit: z.number().optional(),
        lines: z.string().transform((s) => s.split(",")),
      }),
      run: () => "",
    });
    expect(tool.parameters).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        path: { type: "string", description: "the file" },
        limit: { type: "number" },
        lines: { type: "string" },
      },
      required: ["path", "lines"],
    });
  });

  it("for a zod 4 schema without Standard JSON Schema (zod before 4.2), is zod's toJSONSchema of its input", () => {
    const modern = z.object({ n: z.string().transform(Number) });
    const { jsonSchema: _, ...older } = modern["~standard"] as StandardSchemaV1.Props & {
      jsonSchema: unknown;
    };
    const schema = Object.create(modern, { "~standard": { value: older } }) as typeof modern;
    const tool = defineTool({ name: "n", description: "n", input: schema, run: () => "" });
    expect(tool.parameters).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { n: { type: "string" } },
      required: ["n"],
    });
  });

  it("is `parameters` when given beside the schema", () => {
    const parameters = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
    const tool = defineTool({
      name: "greet",
      description: "Greets",
      input: named,
      parameters,
      run: () => "",
    });
    expect(tool.parameters).toBe(parameters);
  });

  it("is the schema itself for a plain JSON Schema, which the loop then checks calls against", () => {
    const input = { type: "object", properties: { text: { type: "string" } } };
    const tool = defineTool({
      name: "echo",
      description: "Echoes",
      input,
      run: (args) => JSON.stringify(args),
    });
    expect(tool.parameters).toBe(input);
    expect(tool.checksArguments).toBeUndefined();
  });

  it("keeps the ToolInfo fields given with it", () => {
    const tool = defineTool({
      name: "read",
      description: "Reads",
      input: z.object({ path: z.string() }),
      readSafe: true,
      timeoutMs: 5_000,
      tier: "cold",
      cache: { pathArgument: "path" },
      run: () => "",
    });
    expect(tool).toMatchObject({
      name: "read",
      description: "Reads",
      readSafe: true,
      timeoutMs: 5_000,
      tier: "cold",
      cache: { pathArgument: "path" },
      checksArguments: true,
    });
  });
});

describe("a typed tool that has no JSON Schema is refused where it is defined", () => {
  it("a Standard Schema that cannot describe itself, without parameters", () => {
    const define = () => defineTool({ name: "greet", description: "Greets", input: named, run: () => "" });
    expect(define).toThrow(ToolSchemaError);
    expect(define).toThrow(
      "tool 'greet': its valibot schema cannot be described as JSON Schema (it does not implement Standard JSON Schema); pass the JSON Schema the model should see as 'parameters' beside it",
    );
  });

  it("a zod 3 schema, which zod 4 cannot describe", () => {
    const define = () =>
      defineTool({
        name: "old",
        description: "Old",
        input: z3.z.object({ a: z3.z.string() }),
        run: () => "",
      });
    expect(define).toThrow(ToolSchemaError);
  });

  it("a zod schema of something JSON Schema cannot say, naming the tool and zod's reason", () => {
    try {
      defineTool({ name: "when", description: "When", input: z.object({ at: z.date() }), run: () => "" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ToolSchemaError);
      expect(error).toMatchObject({ tool: "when", vendor: "zod" });
      expect((error as Error).message).toMatch(/^tool 'when': its zod schema .*\(Date cannot be represented/);
    }
  });
});

describe("a typed tool's call", () => {
  const input = z.object({
    words: z.string().transform((s) => s.split(/\s+/).filter(Boolean)),
    times: z.number().int().positive("times must be at least 1").default(1),
  });

  it("reaches run with the schema's output: transformed, defaults filled", async () => {
    const received: unknown[] = [];
    const tool = defineTool({
      name: "repeat",
      description: "Repeats",
      input,
      run: (args) => {
        received.push(args);
        return args.words.join("+").repeat(args.times);
      },
    });
    expect(await tool.run({ words: "a  b c" }, { signal })).toBe("a+b+c");
    expect(received).toEqual([{ words: ["a", "b", "c"], times: 1 }]);
  });

  it("that does not fit is an error result naming the tool and the schema's issues; run is not called", async () => {
    let runs = 0;
    const tool = defineTool({
      name: "repeat",
      description: "Repeats",
      input,
      run: () => {
        runs++;
        return "ran";
      },
    });
    expect(await tool.run({ words: 7, times: 0 }, { signal })).toEqual({
      output:
        "repeat was not run: its arguments do not fit its schema: words: Invalid input: expected string, received number; times: times must be at least 1. Call it again with arguments that do.",
      isError: true,
    });
    expect(runs).toBe(0);
  });

  it("is checked by a Standard Schema of any library, its validate awaited, its path segments named", async () => {
    const tool = defineTool({
      name: "greet",
      description: "Greets",
      input: named,
      parameters: { type: "object" },
      run: ({ name, length }) => `${name} has ${length} letters`,
    });
    const set = new ToolSet([tool]);
    expect(await set.call("greet", { name: "Ada" }, signal)).toEqual({ output: "Ada has 3 letters" });
    expect(await set.call("greet", { name: 1 }, signal)).toEqual({
      output:
        "greet was not run: its arguments do not fit its schema: name: Expected string. Call it again with arguments that do.",
      isError: true,
    });
  });

  it("names the arguments as a whole for an issue without a path, and at most five issues", async () => {
    const tool = defineTool({
      name: "many",
      description: "Many",
      input: z.object(Object.fromEntries("abcdefg".split("").map((k) => [k, z.string()]))).strict(),
      run: () => "",
    });
    const refused = await tool.run({ extra: 1 }, { signal });
    expect(refused).toMatchObject({ isError: true });
    expect(typeof refused === "object" && refused.output).toBe(
      "many was not run: its arguments do not fit its schema: a: Invalid input: expected string, received undefined; b: Invalid input: expected string, received undefined; c: Invalid input: expected string, received undefined; d: Invalid input: expected string, received undefined; e: Invalid input: expected string, received undefined; and 3 more. Call it again with arguments that do.",
    );
    const whole = defineTool({
      name: "whole",
      description: "Whole",
      input: z.object({ a: z.string() }).refine((o) => o.a !== "no", "the arguments say no"),
      run: () => "",
    });
    expect(await whole.run({ a: "no" }, { signal })).toMatchObject({
      output: expect.stringContaining("its schema: the arguments: the arguments say no."),
    });
  });
});
