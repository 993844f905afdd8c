import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { processGone } from "@ollie/sandbox/testing";
import { describe, expect, it, vi } from "vitest";
import { MockLlmServer } from "../testing/mock-server.js";
import { BackendsConfError, parseBackendsConf } from "./backends-conf.js";
import { CredentialError, resolveCredential } from "./credentials.js";
import { BackendPool, UnknownProfileError } from "./pool.js";

const SECRET = "sk-live-TOPSECRET-123";

const good = `# backends for ollie
default = claude

[claude]
type = anthropic
url = https://api.anthropic.com
model = claude-sonnet-4-6
compaction_model = claude-haiku-4-5
key_env = ANTHROPIC_API_KEY
header = anthropic-beta: some-beta

[openrouter]
type = openai
url = https://openrouter.ai/api/v1
model = deepseek/deepseek-r1
key = ${SECRET}
header = HTTP-Referer: https://example.org
header = X-Title: ollie
budget = $2.50
max_tokens_field = max_completion_tokens
system_role = developer

[local]
type = ollama
model = qwen3:8b
num_ctx = 32768
budget_tokens = 500000

[google]
type = gemini
model = gemini-2.5-flash
key_cmd = echo from-a-command
`;

describe("backends.conf", () => {
  it("reads profiles, their settings and the default", () => {
    const conf = parseBackendsConf(good);
    expect(conf.defaultProfile).toBe("claude");
    expect([...conf.profiles.keys()]).toEqual(["claude", "openrouter", "local", "google"]);
    expect(conf.profiles.get("claude")).toMatchObject({
      type: "anthropic",
      url: "https://api.anthropic.com",
      model: "claude-sonnet-4-6",
      compactionModel: "claude-haiku-4-5",
      credential: { kind: "env", variable: "ANTHROPIC_API_KEY" },
      headers: { "anthropic-beta": "some-beta" },
      line: 4,
    });
    expect(conf.profiles.get("openrouter")).toMatchObject({
      headers: { "HTTP-Referer": "https://example.org", "X-Title": "ollie" },
      maxTokensField: "max_completion_tokens",
      systemRole: "developer",
      budget: { usd: 2.5 },
    });
    expect(conf.profiles.get("local")).toMatchObject({
      numCtx: 32768,
      credential: { kind: "none" },
      budget: { tokens: 500000 },
    });
    expect(conf.profiles.get("claude")?.budget).toBeUndefined();
    expect(parseBackendsConf("[only]\ntype = ollama\nmodel = m\n").defaultProfile).toBe("only");
  });

  const errors: Array<[string, string, number, string]> = [
    ["a bad profile name", "[bad name]\n", 1, "'[bad name]' is not a profile name"],
    ["a profile defined twice", "[a]\ntype = ollama\nmodel = m\n[a]\n", 4, "profile [a] is defined twice"],
    ["a line that is not key = value", "[a]\ntype ollama\n", 2, "expected 'key = value' or '[profile]'"],
    ["a key before any profile", "model = m\n", 1, "'model' must be inside a [profile]"],
    ["an unknown key", "[a]\ntype = ollama\nmodle = m\n", 3, "unknown key 'modle' in [a]"],
    ["a key without a value", "[a]\ntype =\n", 2, "'type' in [a] has no value"],
    ["a malformed header", "[a]\nheader = no colon here\n", 2, "header in [a] must be 'Name: value'"],
    ["a key set twice", "[a]\ntype = ollama\ntype = openai\n", 3, "'type' is set twice in [a]"],
    ["a missing type", "\n[a]\nmodel = m\n", 2, "[a] has no 'type'"],
    [
      "an unknown type",
      "[a]\ntype = bard\nmodel = m\n",
      2,
      "type 'bard' in [a] is not one of openai, anthropic, ollama, gemini",
    ],
    ["a missing model", "[a]\ntype = ollama\n", 1, "[a] has no 'model'"],
    [
      "a bad url",
      "[a]\ntype = ollama\nmodel = m\nurl = localhost:11434\n",
      4,
      "url in [a] is not an http(s) URL",
    ],
    [
      "an openai profile without url",
      "[a]\ntype = openai\nmodel = m\n",
      1,
      "[a] of type openai needs a 'url'",
    ],
    [
      "two credential sources",
      `[a]\ntype = ollama\nmodel = m\nkey = ${SECRET}\nkey_env = X\n`,
      5,
      "[a] sets more than one of key, key_env and key_cmd",
    ],
    [
      "a bad max_tokens_field",
      "[a]\ntype = ollama\nmodel = m\nmax_tokens_field = tokens\n",
      4,
      "max_tokens_field in [a] is max_tokens or max_completion_tokens",
    ],
    [
      "a bad system_role",
      "[a]\ntype = ollama\nmodel = m\nsystem_role = boss\n",
      4,
      "system_role in [a] is system or developer",
    ],
    [
      "a bad num_ctx",
      "[a]\ntype = ollama\nmodel = m\nnum_ctx = lots\n",
      4,
      "num_ctx in [a] is not a whole number",
    ],
    [
      "a github_url that is not a URL",
      "[a]\ntype = copilot\nmodel = m\ngithub_url = github.example.com\n",
      4,
      "github_url in [a] is not an http(s) URL",
    ],
    [
      "a region that is not an AWS region",
      "[a]\ntype = kiro\nmodel = m\nregion = mars\n",
      4,
      "region in [a] is not an AWS region (e.g. us-east-1)",
    ],
    [
      "a budget that is not dollars",
      "[a]\ntype = ollama\nmodel = m\nbudget = 2 dollars\n",
      4,
      "budget in [a] is US dollars above 0 (e.g. 2.50), not '2 dollars'",
    ],
    [
      "a budget_tokens that is not a whole number",
      "[a]\ntype = ollama\nmodel = m\nbudget_tokens = 1e6\n",
      4,
      "budget_tokens in [a] is a whole number above 0",
    ],
    [
      "a default that names no profile",
      "default = nope\n[a]\ntype = ollama\nmodel = m\n",
      1,
      "default names profile 'nope', which is not defined",
    ],
  ];
  it.each(errors)("reports %s with its line", (_what, text, line, message) => {
    let caught: unknown;
    try {
      parseBackendsConf(text, "/home/glenda/.config/ollie/backends.conf");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(BackendsConfError);
    const err = caught as BackendsConfError;
    expect(err.line).toBe(line);
    expect(err.message).toBe(
      `/home/glenda/.config/ollie/backends.conf:${line}: ${message}${err.problem.slice(message.length)}`,
    );
    expect(err.message).toContain(message);
    expect(err.message).not.toContain(SECRET);
  });
});

describe("credentials", () => {
  const conf = parseBackendsConf(good);

  it("come from a literal, an environment variable or a command", async () => {
    expect((await resolveCredential(conf.profiles.get("openrouter")!))?.reveal()).toBe(SECRET);
    expect(
      (await resolveCredential(conf.profiles.get("claude")!, { ANTHROPIC_API_KEY: "from-env" }))?.reveal(),
    ).toBe("from-env");
    expect((await resolveCredential(conf.profiles.get("google")!))?.reveal()).toBe("from-a-command");
    expect(await resolveCredential(conf.profiles.get("local")!)).toBeUndefined();
  });

  it("never show in logs, JSON or messages", async () => {
    const profile = conf.profiles.get("openrouter")!;
    const secret = await resolveCredential(profile);
    for (const shown of [
      String(secret),
      `${secret}`,
      JSON.stringify(profile),
      inspect(profile, { depth: 9 }),
      inspect(secret),
    ]) {
      expect(shown).not.toContain(SECRET);
    }
    expect(String(secret)).toBe("[redacted]");
  });

  it("report what went wrong without the credential", async () => {
    const unset = resolveCredential(conf.profiles.get("claude")!, {});
    await expect(unset).rejects.toThrow("[claude]: key_env names ANTHROPIC_API_KEY, which is not set");
    const leaky = parseBackendsConf(
      `[x]\ntype = ollama\nmodel = m\nkey_cmd = echo ${SECRET}; echo ${SECRET} >&2; exit 3\n`,
    );
    const err = await resolveCredential(leaky.profiles.get("x")!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialError);
    expect((err as Error).message).toBe("[x]: key_cmd failed (exit status 3)");
    const silent = parseBackendsConf("[x]\ntype = ollama\nmodel = m\nkey_cmd = true\n");
    await expect(resolveCredential(silent.profiles.get("x")!)).rejects.toThrow(
      "[x]: key_cmd printed nothing",
    );
  });

  it("stop a key_cmd, and what it started, when the caller gives up", async () => {
    const dir = mkdtempSync(join(tmpdir(), "backends-key-cmd-"));
    try {
      const pidFile = join(dir, "pid");
      const slow = parseBackendsConf(
        `[x]\ntype = ollama\nmodel = m\nkey_cmd = sleep 30 & echo $! > ${pidFile}; wait; echo late\n`,
      );
      const err = await resolveCredential(slow.profiles.get("x")!, process.env, {
        signal: AbortSignal.timeout(300),
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CredentialError);
      // Stopped by the caller's signal, not by its own timeout: the message says which.
      expect((err as Error).message).toBe("[x]: key_cmd was stopped: its caller gave up waiting");
      const sleeper = Number(readFileSync(pidFile, "utf8"));
      await vi.waitFor(() => expect(processGone(sleeper)).toBe(true), { timeout: 2000, interval: 20 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the backend pool", () => {
  it("hands out one backend per profile, with its credential, and the default when none is named", async () => {
    const server = await MockLlmServer.start({ replies: [{ text: "hi" }] });
    try {
      const conf = parseBackendsConf(
        `default = mock\n[mock]\ntype = openai\nurl = ${server.baseUrl("openai")}\nmodel = gpt-x\nkey = ${SECRET}\nheader = X-Title: ollie\n`,
      );
      const pool = new BackendPool(conf);
      const backend = await pool.get();
      expect(await pool.get("mock")).toBe(backend);
      expect(await pool.fresh("mock")).not.toBe(backend);
      expect(backend).toMatchObject({ name: "mock", provider: "openai", model: "gpt-x" });
      for await (const _ of backend.chatStream([{ role: "user", content: "hello" }], [])) {
        // drain
      }
      expect(server.lastRequest?.headers).toMatchObject({
        authorization: `Bearer ${SECRET}`,
        "x-title": "ollie",
      });
      expect(inspect(backend, { depth: 9 })).not.toContain(SECRET);
      expect(() => pool.profile("nope")).toThrow(UnknownProfileError);
      expect(() => pool.profile("nope")).toThrow("no backend profile 'nope' (profiles: mock)");
    } finally {
      await server.close();
    }
  });

  it("makes Copilot and Kiro backends, signed in without a key, from their own keys", async () => {
    const conf = parseBackendsConf(
      "[gh]\ntype = copilot\nmodel = gpt-4.1\ngithub_url = https://octo.ghe.com\n" +
        "[q]\ntype = kiro\nmodel = claude-sonnet-4.5\nregion = eu-central-1\ntoken_file = ~/kiro.json\n",
    );
    expect(conf.profiles.get("gh")).toMatchObject({ type: "copilot", githubUrl: "https://octo.ghe.com" });
    expect(conf.profiles.get("q")).toMatchObject({
      type: "kiro",
      region: "eu-central-1",
      tokenFile: "~/kiro.json",
    });
    const pool = new BackendPool(conf, { HOME: "/home/glenda" });
    expect(await pool.get("gh")).toMatchObject({ provider: "copilot", model: "gpt-4.1" });
    const kiro = await pool.get("q");
    expect(kiro).toMatchObject({ provider: "kiro", model: "claude-sonnet-4.5" });
    const err = await kiro.models().catch((e: unknown) => e);
    expect((err as Error).message).toContain("/home/glenda/kiro.json");
  });
});
