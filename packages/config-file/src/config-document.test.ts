import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkConfig, checkDocument, parseConfigText } from "./config-document.js";
import { ConfigError, type ConfigProblem } from "./config-error.js";

const schema = z.strictObject({
  name: z.string(),
  limits: z.strictObject({ steps: z.number().int().positive() }).optional(),
  paths: z.array(z.string()).default([]),
});

function problemsOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("no error");
}

describe("YAML", () => {
  it("places a wrong value and an unknown key on their lines, naming the keys the object may have", () => {
    const text = "name: x\nlimits:\n  steps: -1\n  stepz: 3\n";
    const error = problemsOf(() => checkDocument(schema, parseConfigText(text, "a.yaml", "yaml")));
    expect(error.problems).toEqual<ConfigProblem[]>([
      {
        key: "limits.steps",
        problem: expect.stringMatching(/>0|positive|too small/i),
        position: { line: 3, column: 10 },
      },
      { key: "limits.stepz", problem: "unknown key (the keys are: steps)", position: { line: 4, column: 3 } },
    ]);
    expect(error.message).toMatch(/^a\.yaml:3:10: limits\.steps: .+; limits\.stepz: unknown key/);
    expect(error.file).toBe("a.yaml");
    expect(error.key).toBe("limits.steps");
  });

  it("gives a syntax error its line and column", () => {
    const error = problemsOf(() => parseConfigText("name: [x\nother: 1\n", "b.yaml", "yaml"));
    expect(error.message).toMatch(/^b\.yaml:\d+:\d+: not YAML: /);
    expect(error.position?.line).toBeGreaterThanOrEqual(1);
  });

  it("names array entries by index", () => {
    const error = problemsOf(() =>
      checkDocument(schema, parseConfigText("name: x\npaths:\n  - a\n  - 3\n", "c.yaml", "yaml")),
    );
    expect(error.problems[0]).toMatchObject({ key: "paths[1]", position: { line: 4, column: 5 } });
  });
});

describe("JSON", () => {
  it("places schema problems in the text", () => {
    const text = '{\n  "name": 7,\n  "extra": true\n}\n';
    const error = problemsOf(() => checkDocument(schema, parseConfigText(text, "p.json", "json")));
    expect(error.problems).toEqual([
      { key: "name", problem: expect.any(String), position: { line: 2, column: 11 } },
      {
        key: "extra",
        problem: "unknown key (the keys are: name, limits, paths)",
        position: { line: 3, column: 3 },
      },
    ]);
  });

  it("gives a syntax error the line and column the engine does not", () => {
    const error = problemsOf(() =>
      parseConfigText('{\n  "name": "x",\n  "paths": [1,]\n}', "q.json", "json"),
    );
    expect(error.message).toBe("q.json:3:15: not JSON: expected a value");
  });

  it("accepts what JSON.parse accepts, duplicate keys included (the last wins)", () => {
    const doc = parseConfigText('{"name": "a", "name": "b"}', "d.json", "json");
    expect(checkDocument(schema, doc)).toEqual({ name: "b", paths: [] });
  });
});

describe("checkConfig", () => {
  it("checks data from code: key paths, no positions", () => {
    const error = problemsOf(() => checkConfig(schema, { name: "x", paths: "no" }, { file: "the options" }));
    expect(error.message).toMatch(/^the options: paths: /);
    expect(error.position).toBeUndefined();
  });

  it("throws the error type it is given", () => {
    class ToolConfigError extends ConfigError {
      override readonly name = "ToolConfigError";
    }
    const error = problemsOf(() => checkConfig(schema, {}, { errorType: ToolConfigError }));
    expect(error).toBeInstanceOf(ToolConfigError);
    expect(error.name).toBe("ToolConfigError");
    expect(error.message).toMatch(/^name: /);
  });

  it("returns the parsed value, defaults applied", () => {
    expect(checkConfig(schema, { name: "x" })).toEqual({ name: "x", paths: [] });
  });
});

describe("an empty YAML file", () => {
  it("is an empty mapping, so a schema of optional keys accepts it", () => {
    const doc = parseConfigText("# nothing yet\n", "e.yaml", "yaml");
    expect(doc.data).toEqual({});
    expect(checkDocument(z.strictObject({ a: z.number().optional() }), doc)).toEqual({});
  });
});
