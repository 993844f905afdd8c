import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postChat } from "./__fixtures__/post-chat.js";
import { MockLlmServer } from "./mock-server.js";
import { SignatureRegistry } from "./signature-registry.js";

describe("SignatureRegistry", () => {
  it("issues fresh, unique signatures and accepts each only for its provider and model", () => {
    const registry = new SignatureRegistry();
    const first = registry.issue("anthropic", "claude-a");
    const second = registry.issue("anthropic", "claude-a");
    expect(first).not.toBe(second);
    expect(Buffer.from(first, "base64").toString("utf8")).toBe("mock:anthropic:claude-a:1");
    expect(registry.accepts("anthropic", "claude-a", first)).toBe(true);
    expect(registry.accepts("anthropic", "claude-b", first)).toBe(false);
    expect(registry.accepts("gemini", "claude-a", first)).toBe(false);
    expect(registry.accepts("anthropic", "claude-a", "made-up")).toBe(false);
    expect(registry.accepts("anthropic", "claude-a", undefined)).toBe(false);
  });

  it("records a script's own signature, for each model it was issued for", () => {
    const registry = new SignatureRegistry();
    expect(registry.issue("gemini", "gemini-a", "sig-1")).toBe("sig-1");
    registry.issue("gemini", "gemini-b", "sig-1");
    expect(registry.accepts("gemini", "gemini-a", "sig-1")).toBe(true);
    expect(registry.accepts("gemini", "gemini-b", "sig-1")).toBe(true);
    expect(registry.accepts("gemini", "gemini-c", "sig-1")).toBe(false);
  });
});

describe("a signature the mock issued in a reply", () => {
  let server: MockLlmServer;
  beforeAll(async () => {
    server = await MockLlmServer.start();
  });
  afterAll(async () => server.close());

  const anthropicReplay = (model: string, signature: string) => ({
    model,
    max_tokens: 2048,
    messages: [
      { role: "user", content: "Hi" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Greet back.", signature },
          { type: "text", text: "Hello" },
        ],
      },
      { role: "user", content: "More" },
    ],
  });
  const geminiReplay = (signature: string) => ({
    contents: [
      { role: "user", parts: [{ text: "Weather?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: signature },
        ],
      },
      { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { output: "18C" } } }] },
    ],
  });

  it("Anthropic: goes back to the model that signed it, and to no other model or provider", async () => {
    server.enqueue({ reasoning: "Greet back.", text: "Hello" });
    const first = await postChat(server, "anthropic", {
      model: "claude-a",
      max_tokens: 2048,
      messages: [{ role: "user", content: "Hi" }],
    });
    const signature = /"signature_delta","signature":"([^"]+)"/.exec(first.text)?.[1];
    expect(signature).toBeDefined();

    server.enqueue({ text: "ok" });
    expect((await postChat(server, "anthropic", anthropicReplay("claude-a", signature!))).status).toBe(200);
    const otherModel = await postChat(server, "anthropic", anthropicReplay("claude-b", signature!));
    expect(otherModel.status).toBe(400);
    expect(server.lastRequest?.rejected).toBe(
      "messages.1.content.0: Invalid `signature` in `thinking` block",
    );
    const otherProvider = await postChat(server, "gemini", geminiReplay(signature!), { model: "claude-a" });
    expect(otherProvider.status).toBe(400);
    expect(server.lastRequest?.rejected).toBe("Corrupted thought signature.");
  });

  it("Gemini: a Gemini 3 call is signed without a script, and the signature holds for that model only", async () => {
    server.enqueue({ toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] });
    const first = await postChat(
      server,
      "gemini",
      { contents: [{ role: "user", parts: [{ text: "Weather?" }] }] },
      { model: "gemini-3-pro-preview" },
    );
    const signature = /"thoughtSignature":"([^"]+)"/.exec(first.text)?.[1];
    expect(signature).toBeDefined();

    server.enqueue({ text: "18C" });
    const same = await postChat(server, "gemini", geminiReplay(signature!), {
      model: "gemini-3-pro-preview",
    });
    expect(same.status).toBe(200);
    const otherModel = await postChat(server, "gemini", geminiReplay(signature!), {
      model: "gemini-3-flash-preview",
    });
    expect(otherModel.status).toBe(400);
    expect(server.lastRequest?.rejected).toBe("Corrupted thought signature.");
    const otherProvider = await postChat(
      server,
      "anthropic",
      anthropicReplay("gemini-3-pro-preview", signature!),
    );
    expect(otherProvider.status).toBe(400);
    expect(server.lastRequest?.rejected).toBe(
      "messages.1.content.0: Invalid `signature` in `thinking` block",
    );
  });
});
