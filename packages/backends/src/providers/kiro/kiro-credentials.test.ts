import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, conversation } from "../../__fixtures__/conversation.js";
import { tempHomes } from "../../__fixtures__/temp-home.js";
import { credentialStoreFile, storeCredential } from "../../config/credential-store.js";
import { AuthError } from "../../errors.js";
import { writeKiroIdcToken, writeKiroSocialToken } from "../../testing/kiro/kiro-fixtures.js";
import { MockLlmServer } from "../../testing/mock-server.js";
import { KiroBackend, type KiroOptions } from "./kiro-backend.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start();
});
afterAll(async () => {
  await server.close();
});

const freshHome = tempHomes("kiro-login-");

function kiroOf(s: MockLlmServer, options: Partial<KiroOptions>): KiroBackend {
  const base = s.baseUrl("kiro");
  return new KiroBackend({
    model: "claude-sonnet-4.5",
    baseUrl: base,
    authUrl: base,
    oidcUrl: `${base}/oidc`,
    ...options,
  });
}

const chat = (backend: KiroBackend, text = "ok", s = server) => {
  s.enqueue({ text });
  return collect(backend.chatStream(conversation.slice(0, 2), []));
};
/** A turn that is refused before any reply is read (so none is queued for it). */
async function refused(backend: KiroBackend): Promise<Error> {
  try {
    await collect(backend.chatStream(conversation.slice(0, 2), []));
  } catch (err) {
    return err as Error;
  }
  throw new Error("the turn was not refused");
}
const chatPosts = (s = server) =>
  s.requests.filter((r) => r.path.endsWith("/generateAssistantResponse")).length;
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));
const inAnHour = () => new Date(Date.now() + 3_600_000);
const aMinuteAgo = () => new Date(Date.now() - 60_000);

describe("kiro: the login", () => {
  it("is renewed before a turn when it expires, and written back atomically: 0600, other fields kept", async () => {
    const { home, env } = freshHome();
    const social = server.kiro.socialCredentials();
    const file = await writeKiroSocialToken(home, { ...social, expiresAt: new Date(Date.now() + 60_000) });
    writeFileSync(file, JSON.stringify({ ...readJson(file), ideField: { kept: true } }), { mode: 0o644 });
    const before = server.kiro.counts;
    const backend = kiroOf(server, { env });
    expect((await chat(backend)).text).toBe("ok");
    expect(server.kiro.counts.socialRefreshes - before.socialRefreshes).toBe(1);
    const saved = readJson(file);
    expect(saved).toMatchObject({
      refreshToken: social.refreshToken,
      authMethod: "social",
      ideField: { kept: true },
    });
    expect(saved.accessToken).not.toBe(social.accessToken);
    expect(Date.parse(saved.expiresAt)).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dirname(file))).toEqual(["kiro-auth-token.json"]);
    expect(server.lastRequest!.headers.authorization).toBe(`Bearer ${saved.accessToken}`);
    expect(server.lastRequest!.body).toMatchObject({ profileArn: social.profileArn });
    // Good for an hour now: the next turn does not renew it.
    await chat(backend);
    expect(server.kiro.counts.socialRefreshes - before.socialRefreshes).toBe(1);
  });

  it("refused during a turn (403, bearer token invalid): renewed, and the request sent once more", async () => {
    const { home, env } = freshHome();
    await writeKiroSocialToken(home, { ...server.kiro.socialCredentials(), expiresAt: inAnHour() });
    const backend = kiroOf(server, { env });
    await chat(backend);
    server.kiro.expireAccessTokens();
    const before = server.kiro.counts;
    const posts = chatPosts();
    expect((await chat(backend, "again")).text).toBe("again");
    expect(server.kiro.counts.invalidBearer - before.invalidBearer).toBe(1);
    expect(server.kiro.counts.socialRefreshes - before.socialRefreshes).toBe(1);
    expect(chatPosts() - posts).toBe(2);
  });

  it("a refresh token the service refuses: a clear AuthError, asked once, and not again", async () => {
    const { home, env } = freshHome();
    await writeKiroSocialToken(home, {
      ...server.kiro.socialCredentials(),
      refreshToken: "aorBOGUS",
      expiresAt: aMinuteAgo(),
    });
    const backend = kiroOf(server, { env });
    const before = server.kiro.counts;
    const posts = chatPosts();
    for (let turn = 0; turn < 2; turn++) {
      const err = await refused(backend);
      expect(err).toBeInstanceOf(AuthError);
      expect(err.message).toMatch(
        /token service 400.*: sign in again with `ollie login kiro` or in the Kiro IDE$/,
      );
    }
    expect(server.kiro.counts.failedRefreshes - before.failedRefreshes).toBe(1);
    expect(chatPosts()).toBe(posts);
  });

  it("refused during a turn and then refused a renewal: one request, one refresh, an AuthError", async () => {
    const { home, env } = freshHome();
    const social = server.kiro.socialCredentials();
    await writeKiroSocialToken(home, { ...social, refreshToken: "aorBOGUS", expiresAt: inAnHour() });
    server.kiro.expireAccessTokens();
    const before = server.kiro.counts;
    const posts = chatPosts();
    expect((await refused(kiroOf(server, { env }))).message).toMatch(/sign in again/);
    expect(server.kiro.counts.failedRefreshes - before.failedRefreshes).toBe(1);
    expect(chatPosts() - posts).toBe(1);
  });

  it("concurrent turns share one renewal", async () => {
    const { home, env } = freshHome();
    await writeKiroSocialToken(home, { ...server.kiro.socialCredentials(), expiresAt: aMinuteAgo() });
    const backend = kiroOf(server, { env });
    const before = server.kiro.counts.socialRefreshes;
    server.enqueue({ text: "one" }, { text: "two" });
    const replies = await Promise.all(
      [1, 2].map(() => collect(backend.chatStream(conversation.slice(0, 2), []))),
    );
    expect(replies.map((r) => r.text).sort()).toEqual(["one", "two"]);
    expect(server.kiro.counts.socialRefreshes - before).toBe(1);
  });

  it("a turn that gives up does not call off the renewal another turn waits for", async () => {
    const { home, env } = freshHome();
    const file = await writeKiroSocialToken(home, {
      ...server.kiro.socialCredentials(),
      expiresAt: aMinuteAgo(),
    });
    const backend = kiroOf(server, { env });
    const quitter = new AbortController();
    server.enqueue({ text: "still here" });
    const gaveUp = collect(backend.chatStream(conversation.slice(0, 2), [], {}, quitter.signal));
    const stayed = collect(backend.chatStream(conversation.slice(0, 2), []));
    quitter.abort();
    await expect(gaveUp).rejects.toThrow(/abort/i);
    expect((await stayed).text).toBe("still here");
    expect(Date.parse(readJson(file).expiresAt)).toBeGreaterThan(Date.now());
  });

  it("shows no token or client secret when the backend is inspected after a renewal", async () => {
    const { home, env } = freshHome();
    const oidc = server.kiro.oidcCredentials();
    await writeKiroIdcToken(home, { ...oidc, expiresAt: aMinuteAgo() });
    const backend = kiroOf(server, { env });
    await chat(backend);
    const shown = inspect(backend, { depth: 20, showHidden: true });
    const sent = String(server.lastRequest!.headers.authorization).replace(/^Bearer /, "");
    for (const secret of [sent, oidc.refreshToken, oidc.clientSecret]) expect(shown).not.toContain(secret);
  });

  it("Builder ID / IdC: renewed through SSO OIDC with the registration beside the token file; no profileArn", async () => {
    const { home, env } = freshHome();
    const { tokenPath, registrationPath } = await writeKiroIdcToken(home, {
      ...server.kiro.oidcCredentials(),
      expiresAt: aMinuteAgo(),
    });
    const registration = readFileSync(registrationPath, "utf8");
    const before = server.kiro.counts.oidcRefreshes;
    expect((await chat(kiroOf(server, { env }))).text).toBe("ok");
    expect(server.kiro.counts.oidcRefreshes - before).toBe(1);
    expect(server.lastRequest!.rejected).toBeUndefined();
    expect(server.lastRequest!.body).not.toHaveProperty("profileArn");
    expect(readJson(tokenPath)).toMatchObject({ authMethod: "IdC", clientIdHash: expect.any(String) });
    expect(readJson(tokenPath)).not.toHaveProperty("clientSecret");
    expect(readFileSync(registrationPath, "utf8")).toBe(registration);
  });

  it("Ollie's credential store comes first, and a renewal is stored there, other entries kept", async () => {
    const { home, env } = freshHome();
    const ide = await writeKiroSocialToken(home, { accessToken: "aoaIDE", refreshToken: "aorIDE" });
    const ideText = readFileSync(ide, "utf8");
    const store = credentialStoreFile(env);
    const { clientId, clientSecret, refreshToken } = server.kiro.oidcCredentials();
    await storeCredential(store, "copilot", {
      "github.com": { githubToken: "gho_x", source: "device flow" },
    });
    await storeCredential(store, "kiro", {
      accessToken: "aoaOLD",
      refreshToken,
      expiresAt: new Date(Date.now() - 1000).toISOString(),
      authMethod: "IdC",
      provider: "BuilderId",
      region: "us-east-1",
      clientId,
      clientSecret,
      note: "kept",
    });
    expect((await chat(kiroOf(server, { env }))).text).toBe("ok");
    const saved = readJson(store);
    expect(saved.copilot).toEqual({ "github.com": { githubToken: "gho_x", source: "device flow" } });
    expect(saved.kiro).toMatchObject({ clientId, clientSecret, refreshToken, note: "kept" });
    expect(saved.kiro.accessToken).not.toBe("aoaOLD");
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(readFileSync(ide, "utf8")).toBe(ideText);
  });

  it("a renewal refused because another program just spent the refresh token uses the login it saved", async () => {
    const { home, env } = freshHome();
    await writeKiroSocialToken(home, { ...server.kiro.socialCredentials(), expiresAt: aMinuteAgo() });
    const theirs = server.kiro.socialCredentials();
    // The other program renews first, saves its login, and the service refuses the spent refresh token.
    server.mount("/kiro-race", "kiro", {
      handle: async (exchange, responder) => {
        if (exchange.path !== "/refreshToken") return false;
        await writeKiroSocialToken(home, { ...theirs, expiresAt: inAnHour() });
        await responder.send({
          status: 400,
          headers: { "content-type": "application/json" },
          frames: [JSON.stringify({ message: "Invalid refresh token provided", reason: "invalid_grant" })],
        });
        return true;
      },
    });
    const backend = kiroOf(server, { env, authUrl: `${server.url}/kiro-race` });
    expect((await chat(backend)).text).toBe("ok");
    expect(server.lastRequest!.headers.authorization).toBe(`Bearer ${theirs.accessToken}`);
  });

  it("tokenFile names the one file looked at", async () => {
    const { home, env } = freshHome();
    const elsewhere = freshHome();
    const file = await writeKiroSocialToken(elsewhere.home, server.kiro.socialCredentials());
    await storeCredential(credentialStoreFile(env), "kiro", {
      accessToken: "aoaNOPE",
      refreshToken: "aorNOPE",
    });
    expect((await chat(kiroOf(server, { env, tokenFile: file }))).text).toBe("ok");
    const missing = join(home, "nothing.json");
    expect((await refused(kiroOf(server, { env, tokenFile: missing }))).message).toBe(
      `kiro: no Kiro login in ${missing} (the configured token file)`,
    );
  });

  it("without any login: an AuthError naming the places looked in", async () => {
    const { home, env } = freshHome();
    const err = await refused(kiroOf(server, { env }));
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toBe(
      `kiro: no Kiro login: run \`ollie login kiro\` or sign in to the Kiro IDE (looked in ${credentialStoreFile(env)} and ${join(home, ".aws", "sso", "cache", "kiro-auth-token.json")})`,
    );
  });

  it("picks up a login renewed elsewhere (the IDE) instead of spending a stale refresh token", async () => {
    const rotating = await MockLlmServer.start({ kiro: { rotateRefreshTokens: true } });
    try {
      const { home, env } = freshHome();
      await writeKiroSocialToken(home, { ...rotating.kiro.socialCredentials(), expiresAt: inAnHour() });
      const ours = kiroOf(rotating, { env });
      await chat(ours, "ok", rotating);
      rotating.kiro.expireAccessTokens();
      // Another program renews the login and writes it back: the refresh token ours holds is spent.
      await chat(kiroOf(rotating, { env }), "ok", rotating);
      expect((await chat(ours, "still signed in", rotating)).text).toBe("still signed in");
      expect(rotating.kiro.counts).toMatchObject({ socialRefreshes: 1, failedRefreshes: 0 });
    } finally {
      await rotating.close();
    }
  });
});
