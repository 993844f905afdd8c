import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MockLlmServer } from "@ollie/backends/testing";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";

// The README's "use the mock server in a test" section is this file.
let server: MockLlmServer;
let dir: string;
beforeAll(async () => {
  server = await MockLlmServer.start();
  dir = mkdtempSync(join(tmpdir(), "chat-example-"));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function chat(...args: string[]) {
  const conf = join(dir, "backends.conf");
  writeFileSync(
    conf,
    [
      "default = claude",
      "[claude]",
      "type = anthropic",
      `url = ${server.baseUrl("anthropic")}`,
      "model = claude-sonnet-4-5",
      "key_env = EXAMPLE_ANTHROPIC_KEY",
      "[local]",
      "type = openai",
      `url = ${server.baseUrl("openai")}`,
      "model = qwen3:8b",
      "",
    ].join("\n"),
  );
  const example = fileURLToPath(new URL("./chat.ts", import.meta.url));
  return execa(process.execPath, ["--import", "tsx", example, conf, ...args], {
    reject: false,
    env: { EXAMPLE_ANTHROPIC_KEY: "sk-ant-example" },
  });
}

it("streams the answer of the default profile, with usage and cost", async () => {
  server.enqueue({
    text: "The sky is blue because of Rayleigh scattering.",
    usage: { input: 1000, cachedInput: 800, output: 12 },
  });
  const run = await chat("Why is the sky blue?");
  expect(run.exitCode).toBe(0);
  expect(run.stdout).toBe("The sky is blue because of Rayleigh scattering.\n(stop)");
  expect(run.stderr).toMatch(/\[1000 in \(800 cached\), 12 out, \$0\.\d+\]/);
  const request = server.lastRequest!;
  expect(request.path).toBe("/v1/messages");
  expect(request.headers["x-api-key"]).toBe("sk-ant-example");
  expect(request.body).toMatchObject({
    model: "claude-sonnet-4-5",
    system: [{ type: "text", text: "Answer in one sentence." }],
    messages: [{ role: "user", content: [{ type: "text", text: "Why is the sky blue?" }] }],
    max_tokens: 1024,
    stream: true,
  });
});

it("names a profile and explains a rate limit", async () => {
  server.enqueue({ fault: { type: "rate_limit", retryAfter: 7 } });
  const run = await chat("local", "Hello?");
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toBe("rate limited; retry in 7 s");
  expect(server.lastRequest!.path).toBe("/v1/chat/completions");
});

it("reports an error the agent cannot retry", async () => {
  server.enqueue({ fault: { type: "auth" } });
  const run = await chat("Hello?");
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toMatch(/^claude 401: .* \(will not succeed as is\)$/);
  expect(run.stderr).not.toContain("sk-ant-example");
});
