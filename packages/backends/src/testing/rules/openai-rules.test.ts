import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postChat } from "../__fixtures__/post-chat.js";
import { MockLlmServer } from "../mock-server.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start({ replies: () => ({ text: "ok" }) });
});
afterAll(async () => server.close());

const request = (messages?: unknown[]) => ({
  model: "gpt-test",
  stream: true,
  ...(messages && { messages }),
});
const user = (content: string) => ({ role: "user", content });
const calls = (...ids: string[]) => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => ({
    id,
    type: "function",
    function: { name: "get_weather", arguments: '{"city":"Paris"}' },
  })),
});
const tool = (id: string) => ({ role: "tool", tool_call_id: id, content: "18C" });

async function expectRejected(
  body: unknown,
  message: string,
  param: string | null,
  code: string | null = null,
) {
  const r = await postChat(server, "openai", body);
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ error: { message, type: "invalid_request_error", param, code } });
  expect(server.lastRequest?.rejected).toBe(message);
}

const ROLE_ERROR =
  "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
const unanswered = (ids: string) =>
  `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids}`;

describe("openai request rules", () => {
  it("requires a non-empty messages array", async () => {
    await expectRejected(
      request(),
      "Missing required parameter: 'messages'.",
      "messages",
      "missing_required_parameter",
    );
    await expectRejected(request([]), "[] is too short - 'messages'", null);
  });

  it("refuses a tool message that answers no tool_calls right before it", async () => {
    await expectRejected(request([user("Hi"), tool("call_A")]), ROLE_ERROR, "messages.[1].role");
    await expectRejected(
      request([user("Hi"), calls("call_A"), tool("call_A"), user("More"), tool("call_A")]),
      ROLE_ERROR,
      "messages.[4].role",
    );
    await expectRejected(
      request([user("Hi"), calls("call_A"), tool("call_B")]),
      "Invalid parameter: 'tool_call_id' of 'call_B' not found in 'tool_calls' of previous message.",
      "messages.[2].tool_call_id",
    );
  });

  it("refuses tool_calls left without a response before the conversation moves on or ends", async () => {
    await expectRejected(
      request([user("Hi"), calls("call_A", "call_B"), tool("call_A"), user("Well?")]),
      unanswered("call_B"),
      "messages.[1].role",
    );
    await expectRejected(
      request([user("Hi"), calls("call_A", "call_B")]),
      unanswered("call_A, call_B"),
      "messages.[1].role",
    );
  });

  it("allows null content only beside tool_calls", async () => {
    await expectRejected(
      request([user("Hi"), { role: "assistant", content: null }, user("Again")]),
      "Invalid value for 'content': expected a string, got null.",
      "messages.[1].content",
    );
  });

  it("wants tool-call arguments as a string", async () => {
    const objectArgs = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_A", type: "function", function: { name: "get_weather", arguments: { city: "Paris" } } },
      ],
    };
    await expectRejected(
      request([user("Hi"), objectArgs, tool("call_A")]),
      "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.",
      "messages[1].tool_calls[0].function.arguments",
      "invalid_type",
    );
  });

  it("accepts a well-formed tool loop, results in any order", async () => {
    const r = await postChat(
      server,
      "openai",
      request([
        { role: "system", content: "Be brief." },
        user("Weather in Paris and Tokyo?"),
        calls("call_A", "call_B"),
        tool("call_B"),
        tool("call_A"),
        { role: "assistant", content: "18C and 24C." },
        user("Thanks"),
      ]),
    );
    expect(server.lastRequest?.rejected).toBeUndefined();
    expect(r.status).toBe(200);
    expect(r.text).toContain("data: [DONE]");
  });
});
