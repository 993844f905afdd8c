import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postChat } from "../__fixtures__/post-chat.js";
import { MockLlmServer } from "../mock-server.js";

let server: MockLlmServer;
beforeAll(async () => {
  server = await MockLlmServer.start({ replies: () => ({ text: "ok" }) });
});
afterAll(async () => server.close());

const call = (args: unknown) => ({
  role: "assistant",
  content: "",
  tool_calls: [{ id: "call_A", function: { index: 0, name: "get_weather", arguments: args } }],
});
const result = { role: "tool", tool_name: "get_weather", tool_call_id: "call_A", content: "18C" };
const user = { role: "user", content: "Weather?" };

async function expectRejected(body: unknown, message: string) {
  const r = await postChat(server, "ollama", body);
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ error: message });
  expect(server.lastRequest?.rejected).toBe(message);
}

describe("ollama request rules", () => {
  it("requires a model", async () => {
    await expectRejected({ messages: [user] }, "model is required");
    await expectRejected({ model: " ", messages: [user] }, "model is required");
  });

  it("takes tool-call arguments as an object, as Go binds them, before anything else", async () => {
    const message = (kind: string) =>
      `json: cannot unmarshal ${kind} into Go struct field ToolCallFunction.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments`;
    await expectRejected(
      { model: "qwen3:8b", messages: [user, call('{"city":"Paris"}'), result] },
      message("string"),
    );
    // Go binds the body before the handler looks for the model.
    await expectRejected({ messages: [user, call(["Paris"]), result] }, message("array"));
  });

  it("knows the roles system, user, assistant and tool", async () => {
    await expectRejected(
      { model: "qwen3:8b", messages: [{ role: "developer", content: "Be brief." }, user] },
      'invalid message role "developer": must be one of system, user, assistant, tool',
    );
  });

  it("accepts a well-formed tool loop", async () => {
    const r = await postChat(server, "ollama", {
      model: "qwen3:8b",
      stream: true,
      messages: [{ role: "system", content: "Be brief." }, user, call({ city: "Paris" }), result],
    });
    expect(server.lastRequest?.rejected).toBeUndefined();
    expect(r.status).toBe(200);
    expect(r.text).toContain('"done":true');
  });
});
