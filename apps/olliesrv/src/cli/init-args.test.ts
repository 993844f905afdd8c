import { describe, expect, it } from "vitest";
import { parseInvocation } from "./invocation.js";

describe("ollie init's and ollie backends' arguments", () => {
  it("refuses a provider it does not know, and options that do not go together", () => {
    for (const [command, args, problem] of [
      [
        "init",
        ["mistral"],
        "unknown provider 'mistral' (ollama, openai, anthropic, gemini, openrouter, copilot, kiro, demo)",
      ],
      [
        "init",
        ["openai", "--key-env", "A", "--no-key"],
        "init takes one of --key-env, --key-cmd and --no-key",
      ],
      ["init", ["openai", "--url", "ftp://x"], "--url takes an http(s) URL, not 'ftp://x'"],
      ["init", ["--force"], "init needs a provider for its options"],
      ["init", ["openai", "anthropic"], "init takes one provider"],
      ["backends", ["extra"], "backends takes at most 0 operand(s)"],
    ] as const) {
      expect(() => parseInvocation(command, [...args]), args.join(" ")).toThrow(problem);
    }
  });

  it("refuses values that would add lines to the file, or are no values", () => {
    for (const [args, problem] of [
      [["--model", "m\n[evil]"], '--model takes one line of text, without control characters: "m\\n[evil]"'],
      [["--key-cmd", "pass x\rkey_cmd = y"], "--key-cmd takes one line of text, without control characters"],
      [["--url", "http://a/\u0007"], "--url takes one line of text, without control characters"],
      [
        ["--key-env", "A_KEY\nurl = http://b"],
        "--key-env takes one line of text, without control characters",
      ],
      [
        ["--key-env", "NOT-A-NAME"],
        "--key-env takes the name of an environment variable (letters, digits, '_'), not 'NOT-A-NAME'",
      ],
      [["--model", ""], "--model needs a value"],
    ] as const) {
      expect(() => parseInvocation("init", ["openai", ...args]), args.join(" ")).toThrow(problem);
    }
  });

  it("asks for the usage with --help or -h, and lists the providers with no provider", () => {
    for (const flag of ["--help", "-h"])
      expect(parseInvocation("init", [flag])).toMatchObject({ help: true });
    expect(parseInvocation("init", [])).toMatchObject({ command: "init", profile: undefined, help: false });
  });
});
