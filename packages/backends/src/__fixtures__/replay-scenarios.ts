import { describe, expect, it } from "vitest";
import type { MockReply } from "../testing/mock-reply.js";
import type { MockLlmServer } from "../testing/mock-server.js";
import type { Message, StopReason } from "../types.js";
import { collect, conversation, type SuiteOptions, weatherTool } from "./conversation.js";

/** The stop reasons each provider has a wire form of, besides stop and tool_use. */
const STOP_REASONS: Record<SuiteOptions["provider"], StopReason[]> = {
  openai: ["length", "content_filter", "refusal"],
  anthropic: ["length", "refusal"],
  gemini: ["length", "content_filter", "blocked", "malformed_call"],
  ollama: ["length"],
  copilot: ["length"],
  kiro: ["length"],
};

/**
 * Histories the provider's API refuses unless the request is built with care — the mock server checks
 * every request against the vendor's rules and answers a broken one with the vendor's 400.
 */
export function replayScenarios(o: SuiteOptions, server: () => MockLlmServer): void {
  const reply = async (reply: MockReply, messages: Message[]) => {
    server().enqueue(reply);
    const r = await collect(o.make(server()).chatStream(messages, [weatherTool], {}));
    expect(server().lastRequest?.rejected).toBeUndefined();
    return r;
  };

  describe(`${o.label ?? o.provider}: histories the API accepts`, () => {
    it("an empty reply, then another prompt", async () => {
      const first = await reply({ text: "" }, conversation.slice(0, 2));
      expect(first.done.message).toMatchObject({ content: "" });
      const history = [...conversation.slice(0, 2), first.done.message, { role: "user", content: "Well?" }];
      const second = await reply({ text: "Sunny." }, history as Message[]);
      expect(second.text).toBe("Sunny.");
    });

    it("whitespace-only text before a tool call, then the call's result", async () => {
      const first = await reply(
        { text: "\n\n", toolCalls: [{ id: "call_ws", name: "get_weather", arguments: { city: "Oslo" } }] },
        conversation.slice(0, 2),
      );
      const call = first.calls[0]!;
      const history: Message[] = [
        ...conversation.slice(0, 2),
        first.done.message,
        { role: "tool", toolCallId: call.id, name: call.name, content: "-3C snow" },
      ];
      expect((await reply({ text: "Cold." }, history)).text).toBe("Cold.");
    });

    it("a call whose result is missing, and a result whose call is gone", async () => {
      const history: Message[] = [
        ...conversation.slice(0, 4),
        { role: "user", content: "Never mind Tokyo." },
        { role: "tool", toolCallId: "call_gone", name: "get_weather", content: "orphan" },
      ];
      expect((await reply({ text: "Fine." }, history)).text).toBe("Fine.");
    });

    for (const reason of STOP_REASONS[o.provider]) {
      it(`a reply that ends by ${reason} says so`, async () => {
        const r = await reply({ text: "Partial", stopReason: reason }, conversation.slice(0, 2));
        expect(r.done.reason).toBe(reason);
      });
    }
  });
}
