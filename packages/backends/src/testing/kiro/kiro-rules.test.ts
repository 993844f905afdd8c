import { afterEach, describe, expect, it } from "vitest";
import { MockLlmServer, type MockServerOptions } from "../mock-server.js";
import { kiroExampleBody } from "./kiro-fixtures.js";
import { KiroMock, type KiroMockOptions } from "./kiro-mock.js";

interface ModelList {
  models: Array<{ modelId: string; tokenLimits: { maxInputTokens: number } }>;
  defaultModel: { modelId: string };
}
interface UsageLimits {
  usageBreakdownList: unknown[];
  nextDateReset: number;
}

const IMPROPER = { message: "Improperly formed request.", reason: null };

let server: MockLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: { kiro?: KiroMockOptions; server?: MockServerOptions } = {}) {
  server = await MockLlmServer.start({ replies: () => ({ text: "ok" }), ...options.server });
  const kiro = new KiroMock(options.kiro);
  server.mount("/kiro", "kiro", kiro);
  const base = `${server.url}/kiro`;
  const social = kiro.socialCredentials();
  const chat = async (body: unknown, token = social.accessToken, contentType = "application/json") => {
    const res = await fetch(`${base}/generateAssistantResponse`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": contentType },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text(), rejected: server!.requests.at(-1)!.rejected };
  };
  const get = async <T>(path: string, token = social.accessToken) => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as T };
  };
  return { kiro, chat, get, social };
}

/** The B.4.2 example with values set at dotted paths (numbers index arrays). */
function variant(...changes: Array<[string, unknown]>): Record<string, unknown> {
  const body = kiroExampleBody();
  for (const [path, value] of changes) {
    const keys = path.split(".");
    let node = body as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
    node[keys.at(-1)!] = value;
  }
  return body;
}

const CURRENT = "conversationState.currentMessage.userInputMessage";
const HISTORY = "conversationState.history";
const USE = `${HISTORY}.1.assistantResponseMessage.toolUses.0`;
const RESULTS = `${CURRENT}.userInputMessageContext.toolResults`;
const TOOL = `${CURRENT}.userInputMessageContext.tools.0.toolSpecification`;
const result = (toolUseId: string) => ({ toolUseId, content: [{ text: "x" }], status: "success" });
const user = (content: string) => ({ userInputMessage: { content } });
const assistant = (toolUseId: string) => ({
  assistantResponseMessage: { content: "again", toolUses: [{ toolUseId, name: "bash", input: {} }] },
});

describe("request rules (B.4.3)", () => {
  it.each([
    ["history must start", [[`${HISTORY}.0`, assistant("tooluse_x")]]],
    ["both user messages", [[HISTORY, [user("a")]]]],
    ["which the turn before did not use", [[`${RESULTS}.0.toolUseId`, "tooluse_unknown"]]],
    ["two toolResults", [[RESULTS, [result("tooluse_Q1w2E3r4T5"), result("tooluse_Q1w2E3r4T5")]]]],
    ["no toolResult for tool use", [[RESULTS, []]]],
    [
      "used by two tool uses",
      [
        [`${HISTORY}.2`, user("ok")],
        [`${HISTORY}.3`, assistant("tooluse_Q1w2E3r4T5")],
      ],
    ],
    ["which currentMessage does not define", [[`${USE}.name`, "grep"]]],
    [
      "longer than 64",
      [
        [`${TOOL}.name`, "b".repeat(65)],
        [`${USE}.name`, "b".repeat(65)],
      ],
    ],
    ["description longer than 10000", [[`${TOOL}.description`, "d".repeat(10_001)]]],
    ["chatTriggerType must be MANUAL", [["conversationState.chatTriggerType", "AUTO"]]],
    ["not a known Kiro model", [[`${CURRENT}.modelId`, "gpt-4o"]]],
    ["origin must be AI_EDITOR", [[`${CURRENT}.origin`, "CLI"]]],
    ["input must be a JSON object, not string", [[`${USE}.input`, '{"command":"ls"}']]],
    ["content must be a string", [[`${CURRENT}.content`, ["Tool results provided."]]]],
  ] as Array<[string, Array<[string, unknown]>]>)("refuses a request where %s", async (why, changes) => {
    const { chat } = await start();
    const answer = await chat(variant(...changes));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual(IMPROPER);
    expect(answer.rejected).toContain(why);
    expect(server!.requests.at(-1)!.provider).toBe("kiro");
  });

  it.each(["claude-sonnet-4.5", "auto", "CLAUDE_SONNET_4_5_20250929_V1_0", "mock-model"])(
    "accepts model id %s",
    async (modelId) => {
      const { chat } = await start();
      expect((await chat(variant([`${CURRENT}.modelId`, modelId]))).status).toBe(200);
    },
  );

  it("takes tool names case-insensitively, as kiro.rs notes", async () => {
    const { chat } = await start();
    expect((await chat(variant([`${USE}.name`, "BASH"]))).status).toBe(200);
  });

  it("lets a broken request through when checkRequests is off", async () => {
    const { chat } = await start({ server: { checkRequests: false } });
    const answer = await chat(variant(["conversationState.chatTriggerType", "AUTO"]));
    expect(answer.status).toBe(200);
    expect(answer.rejected).toBeUndefined();
  });

  it("refuses a body that is not JSON", async () => {
    const { chat } = await start();
    const answer = await chat({ refreshToken: "x" }, undefined, "application/x-www-form-urlencoded");
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual(IMPROPER);
  });

  it("answers Input is too long above maxRequestBytes", async () => {
    const { chat } = await start({ kiro: { maxRequestBytes: 500 } });
    const answer = await chat(kiroExampleBody());
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({
      message: "Input is too long.",
      reason: "CONTENT_LENGTH_EXCEEDS_THRESHOLD",
    });
    expect(answer.rejected).toMatch(/over 500/);
  });
});

describe("bearer token and profile ARN", () => {
  it("answers an expired, unknown or missing bearer token with 403", async () => {
    const { kiro, chat, social } = await start();
    kiro.expireAccessTokens();
    for (const token of [social.accessToken, "aoaAAAAAunknown"]) {
      const answer = await chat(kiroExampleBody(), token);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text)).toEqual({
        message: "The bearer token included in the request is invalid.",
      });
      expect(answer.rejected).toMatch(/bearer token/);
    }
    expect((await chat(kiroExampleBody(), kiro.socialCredentials().accessToken)).status).toBe(200);
    const none = await fetch(`${server!.url}/kiro/generateAssistantResponse`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(kiroExampleBody()),
    });
    expect(none.status).toBe(403);
    expect(await none.text()).toContain("The bearer token included in the request is invalid");
    expect(kiro.counts.invalidBearer).toBe(3);
  });

  it("requires the account's profileArn with a social token, but not with an OIDC one", async () => {
    const { kiro, chat } = await start();
    const invalid = { message: "Improperly formed request.", reason: "REQUEST_BODY_INVALID" };
    const missing = await chat(variant(["profileArn", undefined]));
    expect([missing.status, JSON.parse(missing.text)]).toEqual([400, invalid]);
    const placeholder = await chat(
      variant(["profileArn", "arn:aws:codewhisperer:us-east-1:000000000000:profile/X"]),
    );
    expect([placeholder.status, JSON.parse(placeholder.text)]).toEqual([400, invalid]);
    const oidc = kiro.oidcCredentials().accessToken;
    expect((await chat(variant(["profileArn", undefined]), oidc)).status).toBe(200);
  });

  it("answers 500 when the script has no reply", async () => {
    const { chat } = await start({ server: { replies: [] } });
    expect((await chat(kiroExampleBody())).status).toBe(500);
  });
});

describe("ListAvailableModels and getUsageLimits", () => {
  it("lists the Kiro catalogue and the server's models with token limits", async () => {
    const { get } = await start();
    const { status, body } = await get<ModelList>("/ListAvailableModels?origin=AI_EDITOR");
    expect(status).toBe(200);
    expect(body.models.map((m) => m.modelId)).toEqual([
      "auto",
      "claude-sonnet-4.5",
      "claude-haiku-4.5",
      "claude-opus-4.5",
      "mock-model",
    ]);
    expect(body.models[1]).toEqual({
      modelId: "claude-sonnet-4.5",
      modelName: "Claude Sonnet 4.5",
      description: expect.any(String),
      rateMultiplier: 1.3,
      rateUnit: "credit",
      tokenLimits: { maxInputTokens: 200_000, maxOutputTokens: 64_000 },
      supportedInputTypes: ["TEXT", "IMAGE"],
      supportsPromptCache: true,
    });
    expect(body.models[4]!.tokenLimits.maxInputTokens).toBe(32_768);
    expect(body.defaultModel.modelId).toBe("auto");
    expect((await get("/ListAvailableModels?origin=AI_EDITOR", "nope")).status).toBe(403);
    expect((await get("/ListAvailableModels")).status).toBe(400);
  });

  it("reports the credits the replies used", async () => {
    const { chat, get } = await start({ kiro: { creditsPerReply: 1.25 } });
    await chat(kiroExampleBody());
    await chat(kiroExampleBody());
    const { status, body } = await get<UsageLimits>(
      "/getUsageLimits?origin=AI_EDITOR&resourceType=AGENTIC_REQUEST",
    );
    expect(status).toBe(200);
    expect(body.usageBreakdownList[0]).toMatchObject({
      resourceType: "CREDIT",
      currentUsageWithPrecision: 2.5,
      usageLimitWithPrecision: 50,
    });
    expect(body.nextDateReset).toBeGreaterThan(Date.now() / 1000);
  });
});
