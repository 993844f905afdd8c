import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { MockLlmServer } from "../mock-server.js";
import { CopilotMock, type CopilotMockOptions } from "./copilot-mock.js";
import { COPILOT_CLIENT_ID, DEVICE_GRANT_TYPE } from "./device-flow.js";
import type { ExchangeFailure } from "./token-exchange.js";

let server: MockLlmServer | undefined;
let copilot: CopilotMock;
let base: string;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: CopilotMockOptions = {}): Promise<void> {
  server = await MockLlmServer.start();
  copilot = new CopilotMock(options);
  server.mount("/copilot", "copilot", copilot);
  base = `${server.url}/copilot`;
}

const FORM = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
const EDITOR = { "editor-version": "vscode/1.107.0", "copilot-integration-id": "vscode-chat" };

type Fields = Record<string, string | number>;

async function post(path: string, body: string, headers: Record<string, string> = FORM) {
  const response = await fetch(`${base}${path}`, { method: "POST", headers, body });
  return { response, json: (await response.json()) as Fields };
}

const deviceCode = () => post("/login/device/code", `client_id=${COPILOT_CLIENT_ID}&scope=read%3Auser`);

const poll = (code: string, grant = DEVICE_GRANT_TYPE, clientId = COPILOT_CLIENT_ID) =>
  post(
    "/login/oauth/access_token",
    new URLSearchParams({ client_id: clientId, device_code: code, grant_type: grant }).toString(),
  );

async function exchange(authorization: string) {
  const response = await fetch(`${base}/copilot_internal/v2/token`, {
    headers: { authorization, accept: "application/json", ...EDITOR },
  });
  return { response, body: (await response.json()) as Record<string, unknown> };
}

describe("CopilotMock device flow", () => {
  it("answers pending, then slow_down, then a token, all with HTTP 200, to a client honouring the interval", async () => {
    await start({ deviceFlow: { intervalSeconds: 0.05, pendingPolls: 2, slowDownIntervalSeconds: 0.1 } });
    const { response, json: code } = await deviceCode();
    expect(response.headers.get("x-github-request-id")).toMatch(/^[0-9A-F:]+$/);
    expect(code).toMatchObject({ verification_uri: "https://github.com/login/device", expires_in: 900 });
    expect(code.user_code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(code.interval).toBe(0.05);
    let interval = Number(code.interval);
    const answers: Fields[] = [];
    for (;;) {
      await sleep(interval * 1000 * 1.2);
      const { response, json } = await poll(String(code.device_code));
      expect(response.status).toBe(200);
      answers.push(json);
      if (json.error === "slow_down") interval = Number(json.interval);
      if (json.error === undefined) break;
    }
    expect(answers.map((a) => a.error)).toEqual([
      "authorization_pending",
      "authorization_pending",
      "slow_down",
      undefined,
    ]);
    expect(answers[2]?.interval).toBe(0.1);
    expect(answers[3]).toMatchObject({ token_type: "bearer", scope: "read:user" });
    expect(answers[3]?.access_token).toMatch(/^gho_\w{36}$/);
    expect(copilot.earlyPolls).toBe(0);
    expect(copilot.devicePolls).toBe(4);
    expect(copilot.deviceCodesIssued).toBe(1);
    expect((await exchange(`token ${answers[3]?.access_token}`)).response.status).toBe(200);
  });

  it("counts polls that come before the interval, or ignore a slow_down", async () => {
    // Intervals no poll of this test can outlast, however slowly a busy machine runs it: each poll is early.
    await start({ deviceFlow: { intervalSeconds: 30, pendingPolls: 1, slowDownIntervalSeconds: 60 } });
    const code = String((await deviceCode()).json.device_code);
    expect((await poll(code)).json.error).toBe("authorization_pending");
    expect((await poll(code)).json.error).toBe("slow_down");
    expect((await poll(code)).json.access_token).toBeDefined();
    expect(copilot.earlyPolls).toBe(3);
  });

  it("takes a JSON body and answers form-encoded without Accept: application/json", async () => {
    await start({ deviceFlow: { intervalSeconds: 0.05, pendingPolls: 0 } });
    const response = await fetch(`${base}/login/device/code`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_id: COPILOT_CLIENT_ID, scope: "" }),
    });
    expect(response.headers.get("content-type")).toContain("application/x-www-form-urlencoded");
    const code = new URLSearchParams(await response.text());
    expect(code.get("interval")).toBe("0.05");
    const { json } = await post(
      "/login/oauth/access_token",
      JSON.stringify({
        client_id: COPILOT_CLIENT_ID,
        device_code: code.get("device_code"),
        grant_type: DEVICE_GRANT_TYPE,
      }),
      { "content-type": "application/json", accept: "application/json" },
    );
    expect(json).toMatchObject({ token_type: "bearer", scope: "" });
  });

  it.each([
    ["denied", "access_denied"],
    ["expired", "expired_token"],
  ] as const)("ends %s with %s, and the code is then used up", async (outcome, error) => {
    await start({ deviceFlow: { intervalSeconds: 0.05, pendingPolls: 0, outcome } });
    const code = String((await deviceCode()).json.device_code);
    expect((await poll(code)).json.error).toBe(error);
    expect((await poll(code)).json.error).toBe("incorrect_device_code");
  });

  it("expires a code after expires_in", async () => {
    await start({ deviceFlow: { intervalSeconds: 0.01, pendingPolls: 5, expiresInSeconds: 0.05 } });
    const code = String((await deviceCode()).json.device_code);
    await sleep(70);
    expect((await poll(code)).json.error).toBe("expired_token");
  });

  it("checks the client id and the grant type", async () => {
    await start();
    expect((await post("/login/device/code", "client_id=Iv1.unknown")).json.error).toBe(
      "incorrect_client_credentials",
    );
    const code = String((await deviceCode()).json.device_code);
    expect((await poll(code, "authorization_code")).json.error).toBe("unsupported_grant_type");
    expect((await poll(code, DEVICE_GRANT_TYPE, "Ov23li8tweQw6odWQebz")).json.error).toBe(
      "incorrect_client_credentials",
    );
    expect((await poll("not-a-code")).json.error).toBe("incorrect_device_code");
  });
});

describe("CopilotMock token exchange", () => {
  it("exchanges a known GitHub token sent as `token X` or `Bearer X` for a Copilot token envelope", async () => {
    await start();
    copilot.addGithubToken("gho_known");
    const before = Math.floor(Date.now() / 1000);
    for (const authorization of ["token gho_known", "Bearer gho_known"]) {
      const { response, body } = await exchange(authorization);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-github-request-id")).toBeTruthy();
      const host = new URL(server!.url).host;
      expect(body.token).toMatch(
        new RegExp(
          `^tid=[0-9a-f]+;exp=\\d+;sku=monthly_subscriber;proxy-ep=proxy\\.${host.replace(".", "\\.")};.*:[0-9a-f]{64}$`,
        ),
      );
      expect(String(body.token)).toContain(`exp=${body.expires_at}`);
      expect(body.expires_at).toBeGreaterThanOrEqual(before + 1799);
      expect(body.refresh_in).toBe(1500);
      expect(body).toMatchObject({ sku: "monthly_subscriber", chat_enabled: true, organization_list: [] });
      expect((body.endpoints as { api: string }).api).toBe(`${base}/api`);
    }
    expect(copilot.exchanges).toBe(2);
    expect(copilot.tokensIssued).toBe(2);
    expect(server!.requests.at(-1)).toMatchObject({
      provider: "copilot",
      path: "/copilot/copilot_internal/v2/token",
    });
  });

  it("answers an unknown token or none with 401", async () => {
    await start();
    expect((await exchange("token gho_stranger")).response.status).toBe(401);
    const bare = await fetch(`${base}/copilot_internal/v2/token`);
    expect(bare.status).toBe(401);
    expect(copilot.tokensIssued).toBe(0);
  });

  const failures: Array<[ExchangeFailure, number, Record<string, unknown>]> = [
    [{ type: "unauthorized" }, 401, { message: "Bad credentials" }],
    [{ type: "no_access" }, 403, { error_details: { notification_id: "no_copilot_access" } }],
    [
      { type: "no_access", notificationId: "subscription_ended" },
      403,
      { can_signup_for_limited: false, error_details: { notification_id: "subscription_ended" } },
    ],
    [{ type: "rate_limited" }, 403, { status: "403" }],
    [{ type: "not_found" }, 404, { message: "Not Found" }],
    [{ type: "server_error" }, 500, {}],
  ];
  it.each(failures)("fails an exchange with %o as %i", async (failure, status, body) => {
    await start();
    copilot.addGithubToken("gho_known");
    copilot.failExchanges(failure, 1);
    const failed = await exchange("token gho_known");
    expect(failed.response.status).toBe(status);
    expect(failed.body).toMatchObject(body);
    if (failure.type === "rate_limited") {
      expect(failed.response.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(String(failed.body.message)).toMatch(/^API rate limit exceeded/);
    }
    expect((await exchange("token gho_known")).response.status).toBe(200);
    expect(copilot.exchanges).toBe(2);
  });

  it("keeps failing until the failure is cleared", async () => {
    await start();
    copilot.addGithubToken("gho_known");
    copilot.failExchanges({ type: "not_found" });
    expect((await exchange("token gho_known")).response.status).toBe(404);
    expect((await exchange("token gho_known")).response.status).toBe(404);
    copilot.failExchanges(undefined);
    expect((await exchange("token gho_known")).response.status).toBe(200);
  });
});

describe("CopilotMock chat API authentication", () => {
  async function models(token: string, headers: Record<string, string> = EDITOR) {
    const response = await fetch(`${base}/api/models`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      text: await response.text(),
    };
  }

  async function copilotToken(): Promise<string> {
    copilot.addGithubToken("gho_known");
    return String((await exchange("token gho_known")).body.token);
  }

  it("answers 401 `unauthorized: token expired` after expireTokens, until the client exchanges again", async () => {
    await start();
    const token = await copilotToken();
    expect((await models(token)).status).toBe(200);
    copilot.expireTokens();
    expect(await models(token)).toEqual({
      status: 401,
      type: "text/plain; charset=utf-8",
      text: "unauthorized: token expired",
    });
    expect((await models(await copilotToken())).status).toBe(200);
  });

  it("expires tokens after their TTL", async () => {
    await start({ tokenTtlSeconds: 0.1 });
    const token = await copilotToken();
    expect((await models(token)).status).toBe(200);
    await sleep(120);
    expect((await models(token)).text).toBe("unauthorized: token expired");
  });

  it("refuses unknown tokens, GitHub tokens (unless told otherwise) and a missing Editor-Version", async () => {
    await start();
    expect((await models("tid=forged:00")).status).toBe(401);
    copilot.addGithubToken("gho_known");
    expect((await models("gho_known")).status).toBe(401);
    copilot.configure({ acceptGithubTokens: true });
    expect((await models("gho_known")).status).toBe(200);
    const token = await copilotToken();
    expect(await models(token, { "copilot-integration-id": "vscode-chat" })).toMatchObject({
      status: 400,
      text: "bad request: missing Editor-Version header for IDE auth",
    });
    expect(server!.requests.at(-1)?.rejected).toBe("bad request: missing Editor-Version header for IDE auth");
  });
});
