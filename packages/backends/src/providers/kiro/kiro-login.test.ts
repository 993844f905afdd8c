import { existsSync, readFileSync, statSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { collect, conversation } from "../../__fixtures__/conversation.js";
import { tempHomes } from "../../__fixtures__/temp-home.js";
import { credentialStoreFile } from "../../config/credential-store.js";
import type { KiroDeviceFlowOptions } from "../../testing/kiro/kiro-auth.js";
import { json, type Rendered } from "../../testing/mock-reply.js";
import { MockLlmServer } from "../../testing/mock-server.js";
import { type DeviceCode, LoginError } from "../device-login.js";
import { KiroBackend } from "./kiro-backend.js";
import { loginKiro } from "./kiro-login.js";

const servers: MockLlmServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
const freshHome = tempHomes("kiro-login-");
const freshEnv = () => freshHome().env;

/** A mock whose device flow follows `deviceFlow`, fast: a 50 ms interval, slow_down adding 50 ms. */
async function serverWith(deviceFlow: KiroDeviceFlowOptions): Promise<MockLlmServer> {
  const server = await MockLlmServer.start({
    kiro: { deviceFlow: { intervalSeconds: 0.05, slowDownIncrementSeconds: 0.05, ...deviceFlow } },
  });
  servers.push(server);
  return server;
}

const login = (
  server: MockLlmServer,
  env: NodeJS.ProcessEnv,
  { codes = [], signal, oidcUrl }: { codes?: DeviceCode[]; signal?: AbortSignal; oidcUrl?: string } = {},
) =>
  loginKiro({
    oidcUrl: oidcUrl ?? `${server.baseUrl("kiro")}/oidc`,
    env,
    slowDownSeconds: 0.05,
    onCode: (code) => codes.push(code),
    ...(signal && { signal }),
  });

/**
 * Serves the server's Kiro mock again under /flaky, where each device-code poll gets `answer()` instead
 * while it gives one; returns that SSO OIDC's URL.
 */
function flakyOidc(
  server: MockLlmServer,
  answer: () => Rendered | undefined | Promise<Rendered | undefined>,
): string {
  server.mount("/flaky", "kiro", {
    handle: async (exchange, responder) => {
      const grant = (exchange.body as { grantType?: unknown } | undefined)?.grantType;
      const rendered =
        exchange.path === "/oidc/token" && grant !== "refresh_token" ? await answer() : undefined;
      if (!rendered) return server.kiro.handle(exchange, responder);
      await responder.send(rendered);
      return true;
    },
  });
  return `${server.url}/flaky/oidc`;
}

describe("ollie's Kiro login (Builder ID device flow)", () => {
  it("waits out authorization_pending and slow_down at the asked pace, stores the login 0600, and it works", async () => {
    const server = await serverWith({ pendingPolls: 2, slowDown: true });
    const env = freshEnv();
    const codes: DeviceCode[] = [];
    const { file, login: stored } = await login(server, env, { codes });
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
    const pending = login(server, env, { signal: ac.signal });
    await vi.waitFor(() => expect(server.kiro.counts.devicePolls).toBeGreaterThanOrEqual(2));
    ac.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    const polls = server.kiro.counts.devicePolls;
    await new Promise((r) => setTimeout(r, 150));
    expect(server.kiro.counts.devicePolls).toBe(polls);
    expect(existsSync(credentialStoreFile(env))).toBe(false);
  });

  it("a 5xx while polling is asked again at the next interval, not the end of the sign-in", async () => {
    const server = await serverWith({ pendingPolls: 1 });
    let failures = 0;
    const oidcUrl = flakyOidc(server, () => {
      if (failures === 2) return undefined;
      failures++;
      return json(500, { __type: "InternalServerException", message: "Internal failure" });
    });
    const env = freshEnv();
    const { login: stored } = await login(server, env, { oidcUrl });
    expect(failures).toBe(2);
    expect(server.kiro.counts).toMatchObject({ devicePolls: 2, fastPolls: 0 });
    expect(JSON.parse(readFileSync(credentialStoreFile(env), "utf8")).kiro).toEqual(stored);
  });

  it("a service that keeps answering slow_down is given up on when the code expires", async () => {
    const lifetimeMs = 1000;
    const server = await serverWith({ expiresInSeconds: lifetimeMs / 1000 });
    let slowDowns = 0;
    let firstPoll = 0;
    const oidcUrl = flakyOidc(server, async () => {
      firstPoll ||= Date.now();
      slowDowns++;
      // The third answer comes once the code has run out, however fast or slow the first two came.
      if (slowDowns === 3) await new Promise((r) => setTimeout(r, firstPoll + lifetimeMs - Date.now()));
      return json(400, {
        error: "slow_down",
        __type: "SlowDownException",
        message: "Client is polling too quickly",
      });
    });
    const err = await login(server, freshEnv(), { oidcUrl }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginError);
    expect(err).toMatchObject({ code: "expired_token", message: expect.stringMatching(/ollie login kiro/) });
    expect(slowDowns).toBe(3);
  });
});
