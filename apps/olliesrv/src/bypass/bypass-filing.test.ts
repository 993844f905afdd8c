import { ConfigError } from "@ollie/config-file";
import { describe, expect, it } from "vitest";
import { BypassFilingError, parseFiling } from "./bypass-filing.js";

/** The error `parseFiling(body)` throws. */
function refusal(body: string): BypassFilingError {
  try {
    parseFiling(body);
  } catch (error) {
    if (error instanceof BypassFilingError) return error;
    throw error;
  }
  throw new Error(`parseFiling accepted ${body}`);
}

describe("a bypass request as an agent files it", () => {
  it("names an operation and a reason, trimmed, and may give the whole command", () => {
    expect(
      parseFiling('{"operation":" apt_install ","reason":"needs rg","argv":["apt-get","install","-y","rg"]}'),
    ).toEqual({ operation: "apt_install", reason: "needs rg", argv: ["apt-get", "install", "-y", "rg"] });
    expect(parseFiling('{\n  "operation": "pip",\n  "reason": "a wheel"\n}\n')).toEqual({
      operation: "pip",
      reason: "a wheel",
    });
  });

  it("refuses a directory, the command runs in the session's", () => {
    const error = refusal('{"operation":"x","reason":"y","cwd":"/"}');
    expect(error.message).toBe(
      "bypass request:1:31: cwd: not yours to choose: the command runs in the session's directory",
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.name).toBe("BypassFilingError");
  });

  it("names an unknown key, where it is, and the keys there are", () => {
    const error = refusal('{"operation":"x",\n "reason":"y", "env":{}}');
    expect(error.message).toBe(
      "bypass request:2:16: env: unknown key (the keys are: operation, reason, argv)",
    );
    expect(error.problems).toEqual([
      {
        key: "env",
        problem: "unknown key (the keys are: operation, reason, argv)",
        position: { line: 2, column: 16 },
      },
    ]);
  });

  it("says what is missing or wrong, every problem at once", () => {
    expect(refusal('{"operation":"x"}').message).toBe(
      "bypass request: reason: needed: why, for the person deciding",
    );
    const blank = refusal('{"operation":"  ","reason":5}');
    expect(blank.problems.map((p) => [p.key, p.position?.column])).toEqual([
      ["operation", 14],
      ["reason", 28],
    ]);
    expect(blank.problem).toBe("needed: the name of an operation of the bypass policy");
    expect(refusal('{"operation":"x","reason":"y","argv":"rm -rf /"}').message).toBe(
      "bypass request:1:38: argv: a list of words: the whole command",
    );
    expect(refusal('{"operation":"x","reason":"y","argv":[]}').key).toBe("argv");
    expect(refusal('{"operation":"x","reason":"y","argv":["rm", 3]}').message).toBe(
      "bypass request:1:45: argv[1]: a word: a string",
    );
  });

  it("shows the shape of a request to text that is not one", () => {
    expect(refusal("apt_install").message).toBe(
      'bypass request:1:1: not JSON: expected a value (a bypass request is a JSON object: {"operation": NAME, "reason": WHY, "argv": [WORDS]})',
    );
    expect(refusal('["apt_install"]').message).toBe(
      'bypass request:1:1: a bypass request is a JSON object: {"operation": NAME, "reason": WHY, "argv": [WORDS]}',
    );
  });
});
