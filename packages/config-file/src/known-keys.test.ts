import { describe, expect, it } from "vitest";
import { z } from "zod";
import { knownKeys } from "./known-keys.js";

describe("knownKeys", () => {
  const schema = z.strictObject({
    a: z.strictObject({ b: z.number(), c: z.string() }).optional(),
    list: z.array(z.strictObject({ x: z.number() })).default([]),
    byName: z.record(z.string(), z.strictObject({ y: z.number() })),
    hooks: z.partialRecord(z.enum(["start", "stop"]), z.string()).optional(),
    either: z.union([z.strictObject({ p: z.number() }), z.strictObject({ q: z.number() })]).optional(),
  });

  it("follows objects, optionals, defaults, arrays and records, and names an enum-keyed record's keys", () => {
    expect(knownKeys(schema, [])).toEqual(["a", "list", "byName", "hooks", "either"]);
    expect(knownKeys(schema, ["hooks"])).toEqual(["start", "stop"]);
    expect(knownKeys(schema, ["a"])).toEqual(["b", "c"]);
    expect(knownKeys(schema, ["list", 0])).toEqual(["x"]);
    expect(knownKeys(schema, ["byName", "k"])).toEqual(["y"]);
  });

  it("does not guess through a union", () => {
    expect(knownKeys(schema, ["either"])).toBeUndefined();
  });
});
