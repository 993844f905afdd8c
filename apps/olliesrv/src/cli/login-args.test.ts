import { describe, expect, it } from "vitest";
import { parseInvocation } from "./invocation.js";

describe("ollie login's arguments", () => {
  it("refuses each mistake saying what is wrong", () => {
    for (const [args, problem] of [
      [[], "login needs a provider: copilot or kiro"],
      [["gitlab"], "login knows copilot and kiro, not 'gitlab'"],
      [["copilot", "--github-url", "ftp://x"], '--github-url takes an http(s) URL, not "ftp://x"'],
      [["copilot", "--region", "us-east-1"], "Unknown option '--region'"],
      [["kiro", "--import"], "Unknown option '--import'"],
      [["kiro", "--region", "moon-1"], '--region takes an AWS region (e.g. us-east-1), not "moon-1"'],
      [["copilot", "extra"], "Unexpected argument 'extra'"],
      [["--help", "copilot"], "login --help takes nothing more"],
    ] as const) {
      expect(() => parseInvocation("login", [...args]), args.join(" ")).toThrow(problem);
    }
  });

  it("asks for the usage with --help or -h, alone or after a provider", () => {
    for (const args of [["--help"], ["-h"], ["copilot", "--help"], ["kiro", "-h"]])
      expect(parseInvocation("login", args)).toEqual({ command: "login", provider: undefined });
  });

  it("reads each provider's options", () => {
    expect(
      parseInvocation("login", ["copilot", "--github-url", "https://example.ghe.com", "--import"]),
    ).toEqual({
      command: "login",
      provider: "copilot",
      githubUrl: "https://example.ghe.com",
      fromPlugin: true,
    });
    expect(
      parseInvocation("login", [
        "kiro",
        "--start-url",
        "https://d-1.awsapps.com/start",
        "--region",
        "eu-west-1",
      ]),
    ).toEqual({
      command: "login",
      provider: "kiro",
      startUrl: "https://d-1.awsapps.com/start",
      region: "eu-west-1",
      oidcUrl: undefined,
    });
  });
});
