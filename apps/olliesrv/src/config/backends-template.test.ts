import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROVIDER_TYPES, parseBackendsConf } from "@ollie/backends";
import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../paths.js";
import { TEMPLATE_TYPES, templateProfile, templateProfiles, turnOn } from "./backends-template.js";

const shipped = readFileSync(join(DEFAULTS, "backends.conf"), "utf8");

describe("the shipped backends.conf as a template", () => {
  it("knows the provider types @ollie/backends knows", () => {
    expect([...TEMPLATE_TYPES].sort()).toEqual([...PROVIDER_TYPES].sort());
  });

  it("offers each provider under the word people know it by", () => {
    expect(templateProfiles(shipped).map((p) => [p.provider, p.section, p.type])).toEqual([
      ["ollama", "local", "ollama"],
      ["openai", "openai", "openai"],
      ["anthropic", "claude", "anthropic"],
      ["gemini", "gemini", "gemini"],
      ["openrouter", "openrouter", "openai"],
      ["copilot", "copilot", "copilot"],
      ["kiro", "kiro", "kiro"],
      ["demo", "demo", "demo"],
    ]);
    expect(templateProfile(shipped, "claude")?.provider).toBe("anthropic");
    expect(templateProfile(shipped, "mistral")).toBeUndefined();
  });

  it("turns the offline demo on: no key, no address", () => {
    const conf = parseBackendsConf(turnOn(shipped, templateProfile(shipped, "demo")!));
    expect([...conf.profiles.keys()]).toEqual(["demo"]);
    expect(conf.defaultProfile).toBe("demo");
    expect(conf.profiles.get("demo")).toEqual(
      expect.objectContaining({ type: "demo", model: "ollie-demo", credential: { kind: "none" } }),
    );
    expect(conf.profiles.get("demo")?.url).toBeUndefined();
  });

  it("turns one profile on, comments the others out and makes it the default", () => {
    const text = turnOn(shipped, templateProfile(shipped, "anthropic")!);
    const conf = parseBackendsConf(text);
    expect([...conf.profiles.keys()]).toEqual(["claude"]);
    expect(conf.defaultProfile).toBe("claude");
    expect(conf.profiles.get("claude")).toMatchObject({
      type: "anthropic",
      model: "claude-sonnet-4-5",
      compactionModel: "claude-haiku-4-5",
      credential: { kind: "env", variable: "ANTHROPIC_API_KEY" },
    });
    expect(text).toContain("# [local]\n# type = ollama\n# url = http://localhost:11434\n");
    // The file still explains itself.
    expect(text).toContain("# Ollie's backend profiles");
    expect(text).toContain("# Ollama on this machine: no key needed.");
  });

  it("takes another URL, model and key source, adding a URL the profile did not have", () => {
    const openrouter = parseBackendsConf(
      turnOn(shipped, templateProfile(shipped, "openrouter")!, {
        model: "openai/gpt-5",
        keyCmd: "cat ~/.config/ollie/openrouter.key",
      }),
    ).profiles.get("openrouter");
    expect(openrouter).toMatchObject({
      url: "https://openrouter.ai/api/v1",
      model: "openai/gpt-5",
      headers: { "X-Title": "ollie" },
      credential: { kind: "command", command: "cat ~/.config/ollie/openrouter.key" },
    });
    const gemini = parseBackendsConf(
      turnOn(shipped, templateProfile(shipped, "gemini")!, {
        url: "http://127.0.0.1:9999",
        keyEnv: "MY_KEY",
      }),
    ).profiles.get("gemini");
    expect(gemini).toMatchObject({
      url: "http://127.0.0.1:9999",
      credential: { kind: "env", variable: "MY_KEY" },
    });
    const local = parseBackendsConf(
      turnOn(shipped, templateProfile(shipped, "openai")!, { url: "http://127.0.0.1:8080/v1", noKey: true }),
    ).profiles.get("openai");
    expect(local).toMatchObject({ url: "http://127.0.0.1:8080/v1", credential: { kind: "none" } });
    const ollama = parseBackendsConf(
      turnOn(shipped, templateProfile(shipped, "ollama")!, { keyEnv: "OLLAMA_TOKEN" }),
    ).profiles.get("local");
    expect(ollama).toMatchObject({ credential: { kind: "env", variable: "OLLAMA_TOKEN" } });
  });

  it("turns on the providers one signs in to without a key, their notes left as comments", () => {
    const kiroText = turnOn(shipped, templateProfile(shipped, "kiro")!);
    const kiro = parseBackendsConf(kiroText).profiles.get("kiro");
    expect(kiro).toMatchObject({ type: "kiro", model: "claude-sonnet-4.5", region: "us-east-1" });
    expect(kiro?.credential).toEqual({ kind: "none" });
    expect(kiro?.tokenFile).toBeUndefined();
    expect(kiroText).toContain("# or `ollie login kiro` signs in with an AWS Builder ID.");
    // A GitHub token of one's own is still possible.
    const copilot = parseBackendsConf(
      turnOn(shipped, templateProfile(shipped, "copilot")!, { keyEnv: "GITHUB_TOKEN" }),
    ).profiles.get("copilot");
    expect(copilot).toMatchObject({
      model: "gpt-4.1",
      credential: { kind: "env", variable: "GITHUB_TOKEN" },
    });
    expect(copilot?.githubUrl).toBeUndefined();
  });
});
