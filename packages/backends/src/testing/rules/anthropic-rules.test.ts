import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postChat } from "../__fixtures__/post-chat.js";
import { MockLlmServer } from "../mock-server.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start({ replies: () => ({ text: "ok" }) });
});
afterAll(async () => server.close());

const MODEL = "claude-test";
const DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";
const request = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  max_tokens: 2048,
  stream: true,
  messages,
  ...extra,
});
const user = (content: unknown) => ({ role: "user", content });
const assistant = (content: unknown) => ({ role: "assistant", content });
const toolUse = (id: string) => ({ type: "tool_use", id, name: "get_weather", input: { city: "Paris" } });
const toolResult = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "18C" });
const thinking = { type: "enabled", budget_tokens: 1024 };

async function expectRejected(body: unknown, message: string, headers?: Record<string, string>) {
  const r = await postChat(server, "anthropic", body, headers ? { headers } : {});
  expect(r.status).toBe(400);
  expect(r.json).toEqual({
    type: "error",
    error: { type: "invalid_request_error", message },
    request_id: "req_mock",
  });
  expect(server.lastRequest?.rejected).toBe(message);
}

async function expectAccepted(body: unknown) {
  const r = await postChat(server, "anthropic", body);
  expect(server.lastRequest?.rejected).toBeUndefined();
  expect(r.status).toBe(200);
  expect(r.text).toContain("event: message_stop");
}

describe("anthropic request rules", () => {
  it("requires the anthropic-version header, but no key (repository tests run keyless)", async () => {
    await expectRejected(request([user("Hi")]), "anthropic-version: header is required", {});
    await expectAccepted(request([user("Hi")]));
    const keyless = await postChat(server, "anthropic", request([user("Hi")]), {
      headers: { "anthropic-version": "2023-06-01" },
    });
    expect(keyless.status).toBe(200);
  });

  it("requires max_tokens, and roles user or assistant", async () => {
    await expectRejected({ model: MODEL, messages: [user("Hi")] }, "max_tokens: Field required");
    await expectRejected(
      request([{ role: "system", content: "Be brief." }, user("Hi")]),
      "messages.0.role: Input should be 'user' or 'assistant'",
    );
  });

  it("refuses an empty message, except a final assistant prefill", async () => {
    const message = (n: number) =>
      `messages.${n}: all messages must have non-empty content except for the optional final assistant message`;
    await expectRejected(request([user("Hi"), assistant(""), user("Again")]), message(1));
    await expectRejected(request([user([])]), message(0));
    await expectAccepted(request([user("Hi"), assistant("")]));
  });

  it("refuses empty and whitespace-only text blocks", async () => {
    await expectRejected(
      request([user([{ type: "text", text: "" }])]),
      "messages: text content blocks must be non-empty",
    );
    await expectRejected(
      request([
        user("Hi"),
        assistant([{ type: "text", text: " \n" }, toolUse("t1")]),
        user([toolResult("t1")]),
      ]),
      "messages: text content blocks must contain non-whitespace text",
    );
    await expectRejected(
      request([user("  ")]),
      "messages: text content blocks must contain non-whitespace text",
    );
  });

  it("refuses tool_use ids without tool_result blocks in the next message", async () => {
    await expectRejected(
      request([user("Weather?"), assistant([toolUse("toolu_A"), toolUse("toolu_B")]), user("Well?")]),
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_A, toolu_B. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
    await expectRejected(
      request([
        user("Weather?"),
        assistant([toolUse("toolu_A"), toolUse("toolu_B")]),
        user([toolResult("toolu_A")]),
      ]),
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_B. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
  });

  it("refuses a tool_result that answers no tool_use of the message before", async () => {
    await expectRejected(
      request([user("Hi"), assistant("Hello"), user([{ type: "text", text: "and" }, toolResult("toolu_X")])]),
      "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_X. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    );
  });

  it("accepts a well-formed tool loop", async () => {
    await expectAccepted(
      request([
        user("Weather?"),
        assistant([{ type: "text", text: "Checking." }, toolUse("t1")]),
        user([toolResult("t1")]),
      ]),
    );
  });

  it("refuses thinking blocks whose signature or data this mock did not issue for the model", async () => {
    const history = (block: unknown) => [
      user("Hi"),
      assistant([block, { type: "text", text: "Hello" }]),
      user("More"),
    ];
    await expectRejected(
      request(history({ type: "thinking", thinking: "hm", signature: "EqQBCkYI" })),
      "messages.1.content.0: Invalid `signature` in `thinking` block",
    );
    await expectRejected(
      request(history({ type: "thinking", thinking: "hm" })),
      "messages.1.content.0.thinking.signature: Field required",
    );
    await expectRejected(
      request(history({ type: "redacted_thinking", data: "opaque" })),
      "messages.1.content.0: Invalid `data` in `redacted_thinking` block",
    );
    const signature = server.signatures.issue("anthropic", MODEL);
    const data = server.signatures.issue("anthropic", MODEL);
    await expectAccepted(request(history({ type: "thinking", thinking: "hm", signature })));
    await expectAccepted(request(history({ type: "redacted_thinking", data })));
  });

  it("checks the thinking budget against its minimum and max_tokens", async () => {
    await expectRejected(
      request([user("Hi")], { thinking: { type: "enabled", budget_tokens: 512 } }),
      "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
    );
    await expectRejected(
      request([user("Hi")], { max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 4000 } }),
      `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${DOCS}#max-tokens-and-context-window-size`,
    );
  });

  it("refuses sampling settings thinking does not allow", async () => {
    await expectRejected(
      request([user("Hi")], { thinking, temperature: 0.5 }),
      `\`temperature\` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our documentation at ${DOCS}#feature-compatibility`,
    );
    await expectRejected(
      request([user("Hi")], { thinking: { type: "adaptive" }, top_p: 0.9 }),
      `\`top_p\` must be greater than or equal to 0.95 or unset when thinking is enabled. Please consult our documentation at ${DOCS}#feature-compatibility`,
    );
    await expectRejected(
      request([user("Hi")], { thinking, top_k: 40 }),
      `\`top_k\` must be unset when thinking is enabled. Please consult our documentation at ${DOCS}#feature-compatibility`,
    );
    await expectAccepted(request([user("Hi")], { thinking, temperature: 1, top_p: 0.95 }));
    await expectAccepted(request([user("Hi")], { temperature: 0.2, top_p: 0.5, top_k: 40 }));
  });

  it("with thinking on, a tool loop's assistant message must start with its thinking block", async () => {
    await expectRejected(
      request([user("Weather?"), assistant([toolUse("t1")]), user([toolResult("t1")])], { thinking }),
      `messages.1.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${DOCS}`,
    );
    const signature = server.signatures.issue("anthropic", MODEL);
    await expectAccepted(
      request(
        [
          user("Weather?"),
          assistant([{ type: "thinking", thinking: "Use the tool.", signature }, toolUse("t1")]),
          user([toolResult("t1")]),
        ],
        { thinking },
      ),
    );
    // Without thinking, the same unsigned loop is fine.
    await expectAccepted(request([user("Weather?"), assistant([toolUse("t1")]), user([toolResult("t1")])]));
  });
});
