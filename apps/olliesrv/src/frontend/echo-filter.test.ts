import { describe, expect, it } from "vitest";
import { echoFilter } from "./echo-filter.js";

describe("leaving out the prompt's echo", () => {
  it("drops the chat's echo of the prompt, however it is cut, and only that", () => {
    const drop = echoFilter("hi there");
    expect(["\n» hi", " there\n", "\nHello"].map(drop).join("")).toBe("Hello");
    expect(drop(" again")).toBe(" again");
    const other = echoFilter("hi");
    expect(["» hello\n\n", "Hi"].map(other).join("")).toBe("» hello\n\nHi");
  });
});
