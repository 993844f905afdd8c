import { afterEach, describe, expect, it } from "vitest";
import { postChat } from "./__fixtures__/post-chat.js";
import { MockLlmServer } from "./mock-server.js";

let server: MockLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const broken = { model: "gpt-test", messages: [{ role: "tool", tool_call_id: "call_A", content: "18C" }] };
const valid = { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] };

describe("MockLlmServer request checks", () => {
  it("records a rejected request, answers it with the 400, and keeps the scripted reply for the next", async () => {
    server = await MockLlmServer.start({ replies: [{ text: "kept for later", chunkSize: 100 }] });
    const refused = await postChat(server, "openai", broken);
    expect(refused.status).toBe(400);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      provider: "openai",
      path: "/v1/chat/completions",
      model: "gpt-test",
      body: broken,
      rejected:
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    });
    const answered = await postChat(server, "openai", valid);
    expect(answered.status).toBe(200);
    expect(answered.text).toContain('"content":"kept for later"');
    expect(server.lastRequest?.rejected).toBeUndefined();
  });

  it("does not ask a reply chooser about a rejected request", async () => {
    const chosen: string[] = [];
    server = await MockLlmServer.start({
      replies: (request) => {
        chosen.push(request.model);
        return { text: "ok" };
      },
    });
    await postChat(server, "openai", broken);
    await postChat(server, "openai", valid);
    expect(chosen).toEqual(["gpt-test"]);
  });

  it("answers anything with checkRequests: false", async () => {
    server = await MockLlmServer.start({ replies: [{ text: "ok" }], checkRequests: false });
    const r = await postChat(server, "openai", broken);
    expect(r.status).toBe(200);
    expect(server.lastRequest?.rejected).toBeUndefined();
  });
});
