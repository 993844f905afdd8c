import { parseBackendsConf } from "@ollie/backends";
import { describe, expect, it } from "vitest";
import { backendSecrets } from "./backend-secrets.js";

const conf = parseBackendsConf(
  [
    "[literal]\ntype = openai\nurl = https://api.example.com/v1\nmodel = m\nkey = sk-literal-123",
    "[from-env]\ntype = anthropic\nmodel = m\nkey_env = TEST_ANTHROPIC_KEY",
    "[unset-env]\ntype = anthropic\nmodel = m\nkey_env = NOT_SET_ANYWHERE",
    "[by-command]\ntype = anthropic\nmodel = m\nkey_cmd = pass show anthropic",
    "[header]\ntype = openai\nurl = https://proxy.example.com/v1\nmodel = m",
    "header = Authorization: Bearer hdr-token-9\nheader = anthropic-version: 2023-06-01",
    "[in-url]\ntype = openai\nmodel = m",
    "url = http://glenda:PASS%2F123@127.0.0.1:1/v1?api_key=KEY456&model=x",
    "[token-user]\ntype = ollama\nurl = https://tok-user-7@ollama.example.com\nmodel = m",
  ].join("\n"),
);

describe("the backend credentials olliesrv hides from its log", () => {
  const secrets = backendSecrets(conf, { TEST_ANTHROPIC_KEY: "env-key-456" });

  it("are the literal keys and the values of the variables key_env names", () => {
    expect(secrets).toEqual(expect.arrayContaining(["sk-literal-123", "env-key-456"]));
  });

  it("are credential headers' values, with and without their scheme, and no other header", () => {
    expect(secrets).toEqual(expect.arrayContaining(["Bearer hdr-token-9", "hdr-token-9"]));
    expect(secrets).not.toContain("2023-06-01");
  });

  it("are a URL's password (as written and decoded), credential parameters, or a lone user name", () => {
    expect(secrets).toEqual(expect.arrayContaining(["PASS%2F123", "PASS/123", "KEY456", "tok-user-7"]));
    expect(secrets).not.toContain("glenda");
    expect(secrets).not.toContain("x");
  });

  it("leave out what olliesrv does not hold: an unset variable, a key_cmd's output", () => {
    expect(secrets.filter((s) => s === "" || s.includes("pass show"))).toEqual([]);
  });
});
