import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { collect, conversation } from "../../__fixtures__/conversation.js";
import { credentialStoreFile } from "../../config/credential-store.js";
import type { KiroDeviceFlowOptions } from "../../testing/kiro/kiro-auth.js";
import { MockLlmServer } from "../../testing/mock-server.js";
import { type DeviceCode, LoginError } from "../device-login.js";
import { KiroBackend } from "./kiro-backend.js";
import { loginKiro } from "./kiro-login.js";

const homes: string[] = [];
const servers: MockLlmServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A mock whose device flow follows `deviceFlow`, fast: a 50 ms interval, slow_down adding 50 ms. */
async function serverWith(deviceFlow: KiroDeviceFlowOptions): Promise<MockLlmServer> {
  const server = await MockLlmServer.start({
    kiro: { deviceFlow: { intervalSeconds: 0.05, slowDownIncrementSeconds: 0.05, ...deviceFlow } },
  });
  servers.push(server);
  return server;
}

function freshEnv(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), "kiro-login-"));
  homes.push(home);
  return { HOME: home, XDG_DATA_HOME: join(home, "data") };
}

const login = (
  server: MockLlmServer,
  env: NodeJS.ProcessEnv,
  codes: DeviceCode[] = [],
  signal?: AbortSignal,
) =>
  loginKiro({
    oidcUrl: `${server.baseUrl("kiro")}/oidc`,
    env,
    slowDownSeconds: 0.05,
    onCode: (code) => codes.push(code),
    ...(signal && { signal }),
  });

describe("ollie's Kiro login (Builder ID device flow)", () => {
  it("waits out authorization_pending and slow_down at the asked pace, stores the login 0600, and it works", async () => {
    const server = await serverWith({ pendingPolls: 2, slowDown: true });
    const env = freshEnv();
    const codes: DeviceCode[] = [];
    const { file, login: stored } = await login(server, env, codes);
    expect(codes).toHaveLength(1);
    const { userCode, verificationUri: uri, verificationUriComplete: complete } = codes[0]!;
    expect(userCode).not.toBe("");
    expect(uri).toMatch(/^https?:\/\//);
    expect(complete ?? uri).toMatch(/^https?:\/\//);
    expect(server.kiro.counts).toMatchObject({
      registrations: 1,
      deviceAuthorizations: 1,
      devicePolls: 4,
      fastPolls: 0,
    });
    expect(file).toBe(credentialStoreFile(env));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, "utf8")).kiro;
    expect(saved).toEqual(stored);
    expect(saved).toMatchObject({
      authMethod: "IdC",
      provider: "BuilderId",
      region: "us-east-1",
      startUrl: "https://view.awsapps.com/start",
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      clientId: expect.any(String),
      clientSecret: expect.any(String),
    });
    expect(Date.parse(saved.expiresAt)).toBeGreaterThan(Date.now());

    // The stored login is what a backend finds first; an IdC login's requests carry no profileArn.
    const base = server.baseUrl("kiro");
    server.enqueue({ text: "signed in" });
    const backend = new KiroBackend({ model: "claude-sonnet-4.5", baseUrl: base, authUrl: base, env });
    const r = await collect(backend.chatStream(conversation.slice(0, 2), []));
    expect(r.text).toBe("signed in");
    expect(server.lastRequest!.body).not.toHaveProperty("profileArn");

    // Signing in again reuses the client registration.
    await login(server, env);
    expect(server.kiro.counts.registrations).toBe(1);
  });

  it("expired_token: the code ran out before it was entered", async () => {
    const server = await serverWith({ pendingPolls: 1, outcome: "expired_token" });
    const env = freshEnv();
    const err = await login(server, env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginError);
    expect(err).toMatchObject({ code: "expired_token", message: expect.stringMatching(/ollie login kiro/) });
    expect(existsSync(credentialStoreFile(env))).toBe(false);
  });

  it("access_denied: the user refused", async () => {
    const server = await serverWith({ pendingPolls: 0, outcome: "access_denied" });
    const err = await login(server, freshEnv()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginError);
    expect(err).toMatchObject({ code: "access_denied" });
  });

  it("stops polling when the signal aborts", async () => {
    const server = await serverWith({ pendingPolls: 1000 });
    const env = freshEnv();
    const ac = new AbortController();
    const pending = login(server, env, [], ac.signal);
    while (server.kiro.counts.devicePolls < 2) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    const polls = server.kiro.counts.devicePolls;
    await new Promise((r) => setTimeout(r, 150));
    expect(server.kiro.counts.devicePolls).toBe(polls);
    expect(existsSync(credentialStoreFile(env))).toBe(false);
  });
});
