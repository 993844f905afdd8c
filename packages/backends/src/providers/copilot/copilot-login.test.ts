import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, conversation } from "../../__fixtures__/conversation.js";
import { tempHomes } from "../../__fixtures__/temp-home.js";
import { credentialStoreFile } from "../../config/credential-store.js";
import { AuthError } from "../../errors.js";
import { MockLlmServer } from "../../testing/mock-server.js";
import { type DeviceCode, LoginError } from "../device-login.js";
import { CopilotBackend } from "./copilot-backend.js";
import { importCopilotLogin, loginCopilot } from "./copilot-login.js";
import { findGithubToken } from "./github-token.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start();
});
afterAll(async () => {
  await server.close();
});

const freshHome = tempHomes("copilot-login-");
const freshEnv = () => freshHome().env;

const login = (env: NodeJS.ProcessEnv, codes: DeviceCode[] = []) =>
  loginCopilot({ githubUrl: server.baseUrl("copilot"), env, onCode: (c) => codes.push(c) });

describe("ollie's Copilot login", () => {
  it("the device flow: shows the code, waits out pending and slow_down at the asked pace, stores the token 0600", async () => {
    server.copilot.configure({
      deviceFlow: {
        intervalSeconds: 0.05,
        pendingPolls: 2,
        slowDownIntervalSeconds: 0.1,
        outcome: "granted",
      },
    });
    const env = freshEnv();
    const codes: DeviceCode[] = [];
    const polls = server.copilot.devicePolls;
    const stored = await login(env, codes);
    expect(codes).toHaveLength(1);
    expect(codes[0]!.userCode).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(codes[0]!.verificationUri).toMatch(/^https?:\/\//);
    expect(server.copilot.devicePolls - polls).toBe(4);
    expect(server.copilot.earlyPolls).toBe(0);
    const file = credentialStoreFile(env);
    expect(stored.file).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, "utf8"));
    expect(saved.copilot[stored.host]).toMatchObject({ githubToken: expect.stringMatching(/^gh[ou]_/) });

    // The stored login is what a backend without a key uses.
    const base = server.baseUrl("copilot");
    server.enqueue({ text: "signed in" });
    const backend = new CopilotBackend({ githubUrl: base, githubApiUrl: base, model: "gpt-4.1", env });
    expect((await collect(backend.chatStream(conversation.slice(0, 2), []))).text).toBe("signed in");
  });

  for (const [outcome, code] of [
    ["denied", "access_denied"],
    ["expired", "expired_token"],
  ] as const) {
    it(`a login the user ${outcome === "denied" ? "refuses" : "lets expire"} ends with ${code} and stores nothing`, async () => {
      server.copilot.configure({
        deviceFlow: { intervalSeconds: 0.02, pendingPolls: 1, outcome },
      });
      const env = freshEnv();
      const err = await login(env).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LoginError);
      expect((err as LoginError).code).toBe(code);
      expect(() => statSync(credentialStoreFile(env))).toThrow();
    });
  }

  it("a 5xx while polling is asked again at the next interval, not the end of the login", async () => {
    server.copilot.configure({
      deviceFlow: {
        intervalSeconds: 0.02,
        pendingPolls: 1,
        slowDownIntervalSeconds: 0.02,
        outcome: "granted",
      },
    });
    // GitHub's mock again under /flaky, behind a proxy that fails the first two polls with its own page.
    let failures = 0;
    server.mount("/flaky", "copilot", {
      handle: async (exchange, responder) => {
        if (exchange.path !== "/login/oauth/access_token" || failures === 2)
          return server.copilot.handle(exchange, responder);
        failures++;
        await responder.send({
          status: 502,
          headers: { "content-type": "text/html" },
          frames: ["<html><body>502 Bad Gateway</body></html>"],
        });
        return true;
      },
    });
    const env = freshEnv();
    const polls = server.copilot.devicePolls;
    const early = server.copilot.earlyPolls;
    const stored = await loginCopilot({ githubUrl: `${server.url}/flaky`, env, onCode: () => {} });
    expect(failures).toBe(2);
    expect(server.copilot.devicePolls - polls).toBe(3); // pending, slow_down, granted
    expect(server.copilot.earlyPolls).toBe(early);
    const saved = JSON.parse(readFileSync(stored.file, "utf8"));
    expect(saved.copilot[stored.host]).toMatchObject({ githubToken: expect.stringMatching(/^gh[ou]_/) });
  });

  it("stops polling when its signal aborts", async () => {
    server.copilot.configure({
      deviceFlow: { intervalSeconds: 0.02, pendingPolls: 1_000, outcome: "granted" },
    });
    const controller = new AbortController();
    const polling = loginCopilot({
      githubUrl: server.baseUrl("copilot"),
      env: freshEnv(),
      signal: controller.signal,
      onCode: () => setImmediate(() => controller.abort()),
    });
    await expect(polling).rejects.toThrow(/abort/i);
  });
});

describe("GitHub tokens from elsewhere", () => {
  it("imports a Copilot plugin's token (apps.json before hosts.json) into Ollie's file", async () => {
    const env = freshEnv();
    const dir = join(env.XDG_CONFIG_HOME!, "github-copilot");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "hosts.json"),
      JSON.stringify({ "github.com": { user: "octocat", oauth_token: "gho_fromhosts" } }),
    );
    writeFileSync(
      join(dir, "apps.json"),
      JSON.stringify({
        "github.com:Iv1.b507a08c87ecfe98": { user: "octocat", oauth_token: "ghu_fromapps" },
      }),
    );
    expect(await findGithubToken("github.com", { env })).toMatchObject({
      token: "ghu_fromapps",
      from: join(dir, "apps.json"),
    });
    const imported = await importCopilotLogin({ env });
    expect(imported).toMatchObject({ host: "github.com", from: join(dir, "apps.json") });
    const saved = JSON.parse(readFileSync(credentialStoreFile(env), "utf8"));
    expect(saved.copilot["github.com"]).toEqual({
      githubToken: "ghu_fromapps",
      source: join(dir, "apps.json"),
      user: "octocat",
    });
    expect(await findGithubToken("github.com", { env })).toMatchObject({ token: "ghu_fromapps" });
    expect(await importCopilotLogin({ env: freshEnv() })).toBeUndefined();
  });

  it("without any login, the backend says how to sign in; once signed in, the same backend answers", async () => {
    const base = server.baseUrl("copilot");
    const env = freshEnv();
    const backend = new CopilotBackend({ githubUrl: base, githubApiUrl: base, model: "gpt-4.1", env });
    const err = await collect(backend.chatStream(conversation.slice(0, 2), [])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toMatch(/no GitHub login for 127\.0\.0\.1:\d+: run `ollie login copilot`/);
    // A login made meanwhile (`ollie login copilot` while olliesrv runs) is found at the next request.
    server.copilot.configure({ deviceFlow: { intervalSeconds: 0.05, pendingPolls: 0, outcome: "granted" } });
    await login(env);
    server.enqueue({ text: "signed in since" });
    expect((await collect(backend.chatStream(conversation.slice(0, 2), []))).text).toBe("signed in since");
  });

  it("a credential file that is not JSON is reported and left alone", async () => {
    const env = freshEnv();
    const file = credentialStoreFile(env);
    mkdirSync(join(env.XDG_DATA_HOME!, "ollie"), { recursive: true });
    writeFileSync(file, "{ not json");
    await expect(findGithubToken("github.com", { env })).rejects.toThrow(/is not valid JSON/);
    expect(readFileSync(file, "utf8")).toBe("{ not json");
  });
});
