import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { MockLlmServer } from "../mock-server.js";
import { writeKiroIdcToken, writeKiroSocialToken } from "./kiro-fixtures.js";
import { KiroMock, type KiroMockOptions } from "./kiro-mock.js";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

let server: MockLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: KiroMockOptions = {}) {
  server = await MockLlmServer.start();
  const kiro = new KiroMock(options);
  server.mount("/kiro", "kiro", kiro);
  const base = `${server.url}/kiro`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  // A cheap authenticated call: does the Q API take this access token?
  const accepts = async (accessToken: string) =>
    (
      await fetch(`${base}/ListAvailableModels?origin=AI_EDITOR`, {
        headers: { authorization: `Bearer ${accessToken}` },
      })
    ).status === 200;
  return { kiro, post, accepts };
}

describe("social refresh (Kiro desktop auth)", () => {
  it("refreshes a known token: new access token, same refresh token, profile ARN", async () => {
    const { kiro, post, accepts } = await start();
    const login = kiro.socialCredentials();
    const res = await post("/refreshToken", { refreshToken: login.refreshToken });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-amzn-requestid")).toBeTruthy();
    const body = JSON.parse(res.text);
    expect(body).toEqual({
      accessToken: expect.stringMatching(/^aoaAAAAA/),
      refreshToken: login.refreshToken,
      expiresIn: 3600,
      profileArn: "arn:aws:codewhisperer:us-east-1:699475941385:profile/EHGA3GRVQMUK",
    });
    expect(body.accessToken).not.toBe(login.accessToken);
    expect(await accepts(body.accessToken)).toBe(true);
    expect(kiro.counts.socialRefreshes).toBe(1);
    expect(server!.requests.map((r) => [r.provider, r.path])).toContainEqual(["kiro", "/kiro/refreshToken"]);
  });

  it("rotates refresh tokens when asked, and refuses the retired one", async () => {
    const { kiro, post } = await start({ rotateRefreshTokens: true });
    const { refreshToken } = kiro.socialCredentials();
    const next = JSON.parse((await post("/refreshToken", { refreshToken })).text).refreshToken;
    expect(next).toMatch(/^aorAAAAA/);
    expect(next).not.toBe(refreshToken);
    expect((await post("/refreshToken", { refreshToken })).status).toBe(400);
    expect((await post("/refreshToken", { refreshToken: next })).status).toBe(200);
  });

  it("answers an unknown refresh token with 400 invalid_grant", async () => {
    const { kiro, post } = await start();
    const res = await post("/refreshToken", { refreshToken: "aorAAAAAnope" });
    expect(res.status).toBe(400);
    expect(res.text).toContain('"invalid_grant"');
    expect(res.text).toContain("Invalid refresh token provided");
    expect(kiro.counts.failedRefreshes).toBe(1);
  });

  it("issues access tokens with the configured TTL, which then stop working", async () => {
    let now = Date.now();
    const { kiro, post, accepts } = await start({ accessTokenTtlSeconds: 60, now: () => now });
    const { refreshToken } = kiro.socialCredentials();
    const body = JSON.parse((await post("/refreshToken", { refreshToken })).text);
    expect(body.expiresIn).toBe(60);
    now += 59_999;
    expect(await accepts(body.accessToken)).toBe(true);
    now += 1;
    expect(await accepts(body.accessToken)).toBe(false);
  });

  it("expireAccessTokens invalidates every token issued so far", async () => {
    const { kiro, accepts } = await start();
    const social = kiro.socialCredentials();
    const oidc = kiro.oidcCredentials();
    kiro.expireAccessTokens();
    expect(await accepts(social.accessToken)).toBe(false);
    expect(await accepts(oidc.accessToken)).toBe(false);
    expect(await accepts(kiro.socialCredentials().accessToken)).toBe(true);
  });
});

describe("SSO OIDC", () => {
  it("refreshes with the refresh_token grant (JSON camelCase)", async () => {
    const { kiro, post, accepts } = await start();
    const login = kiro.oidcCredentials();
    const res = await post("/oidc/token", {
      clientId: login.clientId,
      clientSecret: login.clientSecret,
      grantType: "refresh_token",
      refreshToken: login.refreshToken,
    });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text);
    expect(body).toEqual({
      accessToken: expect.any(String),
      tokenType: "Bearer",
      expiresIn: 3600,
      refreshToken: login.refreshToken,
    });
    expect(await accepts(body.accessToken)).toBe(true);
    expect(kiro.counts.oidcRefreshes).toBe(1);
  });

  it("refuses a bad refresh token, a bad client and a form-style grant", async () => {
    const { kiro, post } = await start();
    const { clientId, clientSecret } = kiro.oidcCredentials();
    const bad = await post("/oidc/token", {
      clientId,
      clientSecret,
      grantType: "refresh_token",
      refreshToken: "x",
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toEqual({
      error: "invalid_grant",
      error_description: "Invalid refresh token provided",
    });
    expect(bad.headers.get("x-amzn-errortype")).toBe("InvalidGrantException");
    const client = await post("/oidc/token", { clientId, clientSecret: "wrong", grantType: "refresh_token" });
    expect(client.status).toBe(401);
    expect(JSON.parse(client.text).error).toBe("invalid_client");
    const form = await post("/oidc/token", { clientId, clientSecret, grant_type: "refresh_token" });
    expect(JSON.parse(form.text).error).toBe("unsupported_grant_type");
  });

  async function beginDeviceFlow(post: Awaited<ReturnType<typeof start>>["post"]) {
    const registration = JSON.parse(
      (
        await post("/oidc/client/register", {
          clientName: "ollie",
          clientType: "public",
          scopes: ["codewhisperer:completions", "codewhisperer:conversations"],
          grantTypes: [DEVICE_GRANT, "refresh_token"],
        })
      ).text,
    );
    expect(registration).toEqual({
      clientId: expect.any(String),
      clientSecret: expect.any(String),
      clientIdIssuedAt: expect.any(Number),
      clientSecretExpiresAt: expect.any(Number),
    });
    const { clientId, clientSecret } = registration;
    const authorization = JSON.parse(
      (
        await post("/oidc/device_authorization", {
          clientId,
          clientSecret,
          startUrl: "https://view.awsapps.com/start",
        })
      ).text,
    );
    const poll = async () => {
      const res = await post("/oidc/token", {
        clientId,
        clientSecret,
        deviceCode: authorization.deviceCode,
        grantType: DEVICE_GRANT,
      });
      return { status: res.status, body: JSON.parse(res.text) };
    };
    return { authorization, poll };
  }

  it("runs the device flow: register, authorize, pending polls, tokens", async () => {
    const { kiro, post, accepts } = await start({ deviceFlow: { intervalSeconds: 0.02 } });
    const { authorization, poll } = await beginDeviceFlow(post);
    expect(authorization).toEqual({
      deviceCode: expect.any(String),
      userCode: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/),
      verificationUri: expect.stringMatching(/^https:\/\//),
      verificationUriComplete: expect.stringContaining(authorization.userCode),
      expiresIn: 600,
      interval: 0.02,
    });
    const answers = [];
    for (;;) {
      const answer = await poll();
      if (answer.status === 200) {
        expect(answer.body.tokenType).toBe("Bearer");
        expect(await accepts(answer.body.accessToken)).toBe(true);
        break;
      }
      expect(answer.status).toBe(400);
      answers.push(answer.body.error);
      await sleep(25);
    }
    expect(answers).toEqual(["authorization_pending", "authorization_pending"]);
    expect(kiro.counts).toMatchObject({
      registrations: 1,
      deviceAuthorizations: 1,
      devicePolls: 3,
      fastPolls: 0,
    });
    // The device code is spent.
    expect((await poll()).body.error).toBe("invalid_grant");
  });

  it("answers slow_down once after the pending polls, and counts polls faster than the interval", async () => {
    const { kiro, post } = await start({
      // An interval no poll of this test can outlast, however busy the machine: every poll is too fast.
      deviceFlow: { pendingPolls: 1, slowDown: true, intervalSeconds: 60, slowDownIncrementSeconds: 0 },
    });
    const { poll } = await beginDeviceFlow(post);
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const answer = await poll();
      answers.push(answer.status === 200 ? "ok" : answer.body.error);
    }
    expect(answers).toEqual(["authorization_pending", "slow_down", "ok"]);
    expect(kiro.counts.fastPolls).toBe(2);
  });

  it.each([
    ["expired_token", { outcome: "expired_token" }, 0],
    ["access_denied", { outcome: "access_denied" }, 0],
    // A poll past the device code's lifetime.
    ["expired_token", { expiresInSeconds: 600 }, 600_001],
  ] as const)("ends the device flow with %s", async (error, flow, laterMs) => {
    let now = Date.now();
    const { post } = await start({ deviceFlow: { pendingPolls: 0, ...flow }, now: () => now });
    const { poll } = await beginDeviceFlow(post);
    now += laterMs;
    expect(await poll()).toEqual({ status: 400, body: { error, error_description: expect.any(String) } });
  });

  it("refuses a registration without client metadata", async () => {
    const { post } = await start();
    const res = await post("/oidc/client/register", { clientName: "x" });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toBe("invalid_client_metadata");
  });
});

describe("credential fixtures", () => {
  let home: string | undefined;
  afterEach(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it("writes the social kiro-auth-token.json, expired by default", async () => {
    home = await mkdtemp(join(tmpdir(), "kiro-fixture-"));
    const path = await writeKiroSocialToken(home, {
      accessToken: "aoaAAAAAx",
      refreshToken: "aorAAAAAy",
      profileArn: "arn:aws:codewhisperer:us-east-1:1:profile/P",
    });
    expect(path).toBe(join(home, ".aws", "sso", "cache", "kiro-auth-token.json"));
    const token = JSON.parse(await readFile(path, "utf8"));
    expect(token).toEqual({
      accessToken: "aoaAAAAAx",
      refreshToken: "aorAAAAAy",
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      authMethod: "social",
      provider: "Google",
      profileArn: "arn:aws:codewhisperer:us-east-1:1:profile/P",
    });
    expect(Date.parse(token.expiresAt)).toBeLessThan(Date.now());
  });

  it("writes the IdC token naming its registration by clientIdHash", async () => {
    home = await mkdtemp(join(tmpdir(), "kiro-fixture-"));
    const expiresAt = new Date(Date.now() + 30_000);
    const written = await writeKiroIdcToken(home, {
      accessToken: "a",
      refreshToken: "r",
      clientId: "cid",
      clientSecret: "secret",
      expiresAt,
    });
    const token = JSON.parse(await readFile(written.tokenPath, "utf8"));
    expect(token).toEqual({
      accessToken: "a",
      refreshToken: "r",
      expiresAt: expiresAt.toISOString(),
      authMethod: "IdC",
      provider: "BuilderId",
      region: "us-east-1",
      clientIdHash: written.clientIdHash,
    });
    expect(token.clientSecret).toBeUndefined();
    expect(written.registrationPath).toBe(join(home, ".aws", "sso", "cache", `${written.clientIdHash}.json`));
    expect(JSON.parse(await readFile(written.registrationPath, "utf8"))).toEqual({
      clientId: "cid",
      clientSecret: "secret",
      expiresAt: expect.any(String),
    });
  });
});
