import { describe, expect, it } from "vitest";
import { auditSource } from "./audit-trail.js";

describe("an audit line's source", () => {
  it("is a TCP peer's host, not each connection's port", () => {
    expect(auditSource("tcp!10.0.0.7!51234")).toBe("tcp!10.0.0.7");
    expect(auditSource("unix")).toBe("unix");
    expect(auditSource("123-abc.main")).toBe("123-abc.main");
  });
});
