import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "./redactor.js";

describe("the redactor", () => {
  it("replaces every occurrence of every secret", () => {
    const r = new Redactor(["s3cret", "tok.en*"]);
    expect(r.apply("key s3cret, again s3cret; tok.en* not tokXen*")).toBe(
      `key ${REDACTED}, again ${REDACTED}; ${REDACTED} not tokXen*`,
    );
  });

  it("replaces a secret that contains another whole", () => {
    const r = new Redactor(["abc", "xxabcxx"]);
    expect(r.apply("xxabcxx abc")).toBe(`${REDACTED} ${REDACTED}`);
  });

  it("takes secrets added later, and ignores the empty string", () => {
    const r = new Redactor([""]);
    expect(r.apply("nothing to hide")).toBe("nothing to hide");
    r.add("late");
    expect(r.apply("a late key")).toBe(`a ${REDACTED} key`);
  });

  it("runs the caller's redaction after its own", () => {
    const r = new Redactor(["k1"], (text) => text.replace(/\/\/[^@/]+@/g, "//***@"));
    expect(r.apply("k1 at https://user:pw@example.com/")).toBe(`${REDACTED} at https://***@example.com/`);
  });
});
